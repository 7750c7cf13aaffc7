import { twilioAccount } from '@/lib/protocols/twilio/account';
import { twilioRoute } from '@/lib/protocols/twilio/route';
import { accountJsonParams, accountResource } from '@/lib/protocols/twilio/schemas';

export const GET = twilioRoute(
  {
    auth: 'twilio',
    params: accountJsonParams,
    doc: {
      operationId: 'twilioFetchAccount',
      summary: 'Fetch the account (Twilio)',
      description:
        '`GET /2010-04-01/Accounts/{AccountSid}.json`: the account, `status: active`, as setup wizards of Twilio-based tools call it to check the credentials. Another account’s SID answers 404 (20404).',
      tags: ['Twilio-compatible API'],
      response: { description: 'The account.', schema: accountResource },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, params }) => twilioAccount(db, principal.accountId, params.accountSid),
);
