import { route } from '@/lib/http/route';
import { createAuthToken } from '@/lib/protocols/twilio/credentials';
import { credentialsSchema } from '@/lib/protocols/twilio/schemas';

export const POST = route(
  {
    auth: 'account',
    status: 201,
    doc: {
      operationId: 'createTwilioAuthToken',
      summary: 'Twilio compatibility: create or rotate the Auth Token',
      description:
        'A new Auth Token for the Twilio-compatible API (`/2010-04-01/…`), shown once with the Account SID. It authenticates requests (HTTP Basic `AccountSid:AuthToken`) and signs status callbacks and Twilio-format webhooks (X-Twilio-Signature), so it is stored encrypted. Creating another replaces it at once. Audited.',
      tags: ['Twilio-compatible API'],
      response: { description: 'The credentials; the token is shown once.', schema: credentialsSchema },
    },
  },
  async ({ db, principal }) => createAuthToken(db, principal.accountId),
);
