import { validationError } from '@/lib/errors';
import {
  assertOwnAccountSid,
  cancelTwilioMessage,
  fetchTwilioMessage,
  messageIdOfPath,
  redactTwilioMessage,
} from '@/lib/protocols/twilio/messages';
import { twilioRoute } from '@/lib/protocols/twilio/route';
import { messageParams, messageResource, updateMessageBody } from '@/lib/protocols/twilio/schemas';

export const GET = twilioRoute(
  {
    auth: 'twilio',
    params: messageParams,
    doc: {
      operationId: 'twilioFetchMessage',
      summary: 'Fetch a message (Twilio)',
      description: '`GET /2010-04-01/Accounts/{AccountSid}/Messages/{MessageSid}.json`: one message of the account.',
      tags: ['Twilio-compatible API'],
      response: { description: 'The message.', schema: messageResource },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, params }) => {
    assertOwnAccountSid(principal.accountId, params.accountSid);
    return fetchTwilioMessage(db, principal.accountId, messageIdOfPath(params.messageSid));
  },
);

export const POST = twilioRoute(
  {
    auth: 'twilio',
    params: messageParams,
    body: updateMessageBody,
    doc: {
      operationId: 'twilioUpdateMessage',
      summary: 'Cancel or redact a message (Twilio)',
      description:
        '`Status=canceled` cancels a queued or scheduled message (refunded; another state answers 409, code 30409). `Body=` (empty) removes a final message’s content.',
      tags: ['Twilio-compatible API'],
      response: { description: 'The message.', schema: messageResource },
      errors: ['NOT_FOUND', 'MESSAGE_NOT_CANCELLABLE', 'INVALID_TRANSITION'],
    },
  },
  async ({ db, principal, params, body }) => {
    assertOwnAccountSid(principal.accountId, params.accountSid);
    const messageId = messageIdOfPath(params.messageSid);
    if (body.Status === 'canceled') return cancelTwilioMessage(db, principal.accountId, messageId);
    if (body.Body === '') return redactTwilioMessage(db, principal.accountId, messageId);
    throw validationError('Status', 'give Status=canceled, or an empty Body to remove the content');
  },
);

export const DELETE = twilioRoute(
  {
    auth: 'twilio',
    params: messageParams,
    doc: {
      operationId: 'twilioDeleteMessage',
      summary: 'Delete a message’s content (Twilio)',
      description: 'Removes the content of a message in a final state (204); one still in flight answers 409 (20009).',
      tags: ['Twilio-compatible API'],
      response: { description: 'Removed.' },
      errors: ['NOT_FOUND', 'INVALID_TRANSITION'],
    },
  },
  async ({ db, principal, params }) => {
    assertOwnAccountSid(principal.accountId, params.accountSid);
    await redactTwilioMessage(db, principal.accountId, messageIdOfPath(params.messageSid));
  },
);
