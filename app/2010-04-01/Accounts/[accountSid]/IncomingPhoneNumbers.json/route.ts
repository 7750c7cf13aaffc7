import { twilioIncomingNumbers } from '@/lib/protocols/twilio/account';
import { assertOwnAccountSid } from '@/lib/protocols/twilio/messages';
import { twilioRoute } from '@/lib/protocols/twilio/route';
import { accountParams, incomingNumberPage } from '@/lib/protocols/twilio/schemas';

export const GET = twilioRoute(
  {
    auth: 'twilio',
    params: accountParams,
    doc: {
      operationId: 'twilioListIncomingPhoneNumbers',
      summary: 'List the account’s numbers (Twilio)',
      description:
        'The account’s phones as Twilio’s IncomingPhoneNumbers (SMS only), for tools that let you pick a sender.',
      tags: ['Twilio-compatible API'],
      response: { description: 'One page holding every phone.', schema: incomingNumberPage },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, params }) => {
    assertOwnAccountSid(principal.accountId, params.accountSid);
    return twilioIncomingNumbers(db, principal.accountId);
  },
);
