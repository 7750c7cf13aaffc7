import { route } from '@/lib/http/route';
import { SEND_MESSAGE } from '@/lib/messages/docs';
import { listMessages } from '@/lib/messages/list';
import { messageListQuery, messageSchema, sendMessageBody } from '@/lib/messages/schemas';
import { sendMessage } from '@/lib/messages/send';
import { pageOf } from '@/lib/openapi/define';

export const POST = route(
  {
    auth: 'account',
    body: sendMessageBody,
    status: 201,
    doc: {
      operationId: 'sendMessage',
      summary: 'Send a message',
      description: SEND_MESSAGE,
      tags: ['Messages'],
      response: { description: 'The queued message.', schema: messageSchema },
      errors: ['FORBIDDEN', 'DUPLICATE_REQUEST', 'INSUFFICIENT_CREDITS'],
    },
  },
  async ({ db, principal, body }) =>
    sendMessage(db, principal.accountId, {
      from: body.from,
      to: body.to,
      content: body.content,
      requestId: body.request_id,
      sendAt: body.send_at,
      ttlSeconds: body.ttl_s,
    }),
);

export const GET = route(
  {
    auth: 'account',
    query: messageListQuery,
    doc: {
      operationId: 'listMessages',
      summary: 'List messages',
      description: 'Newest first; `status`, `direction`, `phone` and the creation range narrow the list.',
      tags: ['Messages'],
      response: { description: 'A page of messages.', schema: pageOf(messageSchema) },
    },
  },
  async ({ db, principal, query }) => listMessages(db, principal.accountId, query),
);
