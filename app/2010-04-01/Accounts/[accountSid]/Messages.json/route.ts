import { DOCUMENTED_CODES } from '@/lib/protocols/twilio/errors';
import { assertOwnAccountSid, createTwilioMessage, listTwilioMessages } from '@/lib/protocols/twilio/messages';
import { twilioRoute } from '@/lib/protocols/twilio/route';
import {
  accountParams,
  createMessageBody,
  listMessagesQuery,
  messagePage,
  messageResource,
} from '@/lib/protocols/twilio/schemas';

export const GET = twilioRoute(
  {
    auth: 'twilio',
    params: accountParams,
    query: listMessagesQuery,
    doc: {
      operationId: 'twilioListMessages',
      summary: 'List messages (Twilio)',
      description:
        'The account’s messages, newest first, filtered by `To`, `From` and `DateSent` (also `DateSent<`, `DateSent>`), in Twilio’s pages: follow `next_page_uri` (the official clients’ `list()` and `each()` do).',
      tags: ['Twilio-compatible API'],
      response: { description: 'A page of messages.', schema: messagePage },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, params, query }) => {
    assertOwnAccountSid(principal.accountId, params.accountSid);
    return listTwilioMessages(db, principal.accountId, query);
  },
);

export const POST = twilioRoute(
  {
    auth: 'twilio',
    params: accountParams,
    body: createMessageBody,
    status: 201,
    doc: {
      operationId: 'twilioCreateMessage',
      summary: 'Send a message (Twilio)',
      description: `One SMS from \`From\` (one of the account’s phones) or through the phone group a \`MessagingServiceSid\` names (with failover), charged one credit. \`StatusCallback\` receives Twilio’s signed status callbacks; \`ValidityPeriod\` is the TTL; \`SendAt\` with \`ScheduleType=fixed\` schedules it. \`MaxPrice\`, \`Attempt\`, \`SmartEncoded\` and unknown parameters are ignored; \`MediaUrl\` is refused. Error codes: ${DOCUMENTED_CODES}`,
      tags: ['Twilio-compatible API'],
      response: { description: 'The message, queued or scheduled.', schema: messageResource },
      errors: [
        'NOT_FOUND',
        'INSUFFICIENT_CREDITS',
        'FORBIDDEN',
        'RECIPIENT_OPTED_OUT',
        'RECIPIENT_COUNTRY_NOT_ALLOWED',
        'RECIPIENT_QUOTA_REACHED',
        'QUEUE_FULL',
      ],
    },
  },
  async ({ db, principal, params, body }) => {
    assertOwnAccountSid(principal.accountId, params.accountSid);
    return createTwilioMessage(db, principal.accountId, body);
  },
);
