import { route } from '@/lib/http/route';
import { disableTwoFactor, twoFactorStatus } from '@/lib/members/two-factor';
import { twoFactorCodeBody, twoFactorStatusSchema } from '@/lib/members/two-factor-schemas';

export const GET = route(
  {
    auth: 'account',
    allowPendingTwoFactor: true,
    doc: {
      operationId: 'getTwoFactorStatus',
      summary: 'Read the signed-in member’s two-factor sign-in',
      description:
        'Whether the member signs in with an authenticator app, whether an enrolment awaits its first code, whether the account requires two-factor sign-in, and how many recovery codes are left. A dashboard session of a member only: an API key answers 403.',
      tags: ['Authentication'],
      response: { description: 'The member’s two-factor sign-in.', schema: twoFactorStatusSchema },
      errors: ['FORBIDDEN'],
    },
  },
  async ({ db, principal }) => twoFactorStatus(db, principal),
);

export const DELETE = route(
  {
    auth: 'account',
    body: twoFactorCodeBody,
    allowPendingTwoFactor: true,
    doc: {
      operationId: 'disableTwoFactor',
      summary: 'Turn two-factor sign-in off',
      description:
        'Takes a current code of the authenticator app or an unused recovery code. Refused (409 CONFLICT) while the account requires two-factor sign-in, or when it is not on. A wrong code answers 400 INVALID_CODE and is audited; attempts are limited per member (429).',
      tags: ['Authentication'],
      response: { description: 'Two-factor sign-in is off; the secret and recovery codes are gone.' },
      errors: ['FORBIDDEN', 'INVALID_CODE', 'CONFLICT', 'RATE_LIMITED'],
    },
  },
  async ({ db, principal, body }) => {
    await disableTwoFactor(db, principal, body.code);
  },
);
