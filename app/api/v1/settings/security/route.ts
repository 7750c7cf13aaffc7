import { route } from '@/lib/http/route';
import { securitySettings, updateSecuritySettings } from '@/lib/members/two-factor';
import { securitySettingsBody, securitySettingsSchema } from '@/lib/members/two-factor-schemas';

export const GET = route(
  {
    auth: 'account',
    doc: {
      operationId: 'getSecuritySettings',
      summary: 'Read the account’s security settings',
      description: 'Whether every member must sign in with a second factor.',
      tags: ['Authentication'],
      response: { description: 'The settings.', schema: securitySettingsSchema },
    },
  },
  async ({ db, principal }) => securitySettings(db, principal.accountId),
);

export const PATCH = route(
  {
    auth: 'account',
    body: securitySettingsBody,
    doc: {
      operationId: 'updateSecuritySettings',
      summary: 'Require two-factor sign-in of every member',
      description:
        'Owners only (or an API key without a role): 403 FORBIDDEN otherwise. An owner signed in by email turns it on only once their own two-factor sign-in is on (409 CONFLICT). While it is on, a member without a second factor is signed in but every route answers 403 FORBIDDEN ("two-factor required") except the two-factor routes and sign-out, and the dashboard shows only the enrolment; members cannot turn their own off. Audited.',
      tags: ['Authentication'],
      response: { description: 'The settings.', schema: securitySettingsSchema },
      errors: ['FORBIDDEN', 'CONFLICT'],
    },
  },
  async ({ db, principal, body }) => updateSecuritySettings(db, principal, body),
);
