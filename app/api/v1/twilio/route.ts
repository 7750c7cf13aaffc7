import { route } from '@/lib/http/route';
import { twilioSettings } from '@/lib/protocols/twilio/credentials';
import { settingsSchema } from '@/lib/protocols/twilio/schemas';

export const GET = route(
  {
    auth: 'account',
    doc: {
      operationId: 'getTwilioSettings',
      summary: 'Twilio compatibility: the Account SID',
      description:
        'The account’s Twilio Account SID (`AC…`, the same forever) and whether an Auth Token exists. The token itself is shown only when created (POST /api/v1/twilio/auth-token).',
      tags: ['Twilio-compatible API'],
      response: { description: 'The Account SID.', schema: settingsSchema },
    },
  },
  async ({ db, principal }) => twilioSettings(db, principal.accountId),
);
