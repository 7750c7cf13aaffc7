import { json } from '@/lib/http/route';
import { listSmsgateMessages, sendSmsgateMessage } from '@/lib/protocols/smsgate-api/messages';
import { integratorRoute } from '@/lib/protocols/smsgate-api/route';
import { listMessagesQuery, messageStateSchema, sendMessageBody, sendQuery } from '@/lib/protocols/smsgate-api/schemas';
import { z } from '@/lib/zod';

export const GET = integratorRoute(
  {
    auth: 'integrator',
    query: listMessagesQuery,
    doc: {
      operationId: 'smsgateListMessages',
      summary: 'List messages (SMSGate)',
      description:
        'Messages sent through this API, newest first (`sort=created_at` for oldest first), filtered by `from`/`to` (creation time), `state` and `deviceId`; `limit` (1–100, default 50) and `offset`, with the total in `X-Total-Count`. `includeContent=true` adds `textMessage`.',
      tags: ['SMSGate integrator API'],
      response: { description: 'A page of message states.', schema: z.array(messageStateSchema) },
    },
  },
  async ({ db, principal, query }) => {
    const { items, total } = await listSmsgateMessages(db, principal.accountId, query);
    return json(items, 200, { 'X-Total-Count': String(total) });
  },
);

export const POST = integratorRoute(
  {
    auth: 'integrator',
    body: sendMessageBody,
    query: sendQuery,
    status: 202,
    doc: {
      operationId: 'smsgateSendMessage',
      summary: 'Send a message (SMSGate)',
      description:
        'One Simgate message per recipient, from `deviceId` or through the account’s default group; one credit per recipient, all or nothing (402 when short). Recipients who opted out are `Failed` and charged nothing. A repeated `id` answers 409 and charges nothing. 202 with the state and a `Location` header. Also at `/message`.',
      tags: ['SMSGate integrator API'],
      response: { description: 'Accepted.', schema: messageStateSchema },
      errors: ['INSUFFICIENT_CREDITS', 'FORBIDDEN', 'DUPLICATE_REQUEST', 'RECIPIENT_OPTED_OUT', 'QUEUE_FULL'],
    },
  },
  async ({ db, principal, body, url }) => {
    const state = await sendSmsgateMessage(db, principal.accountId, body);
    const base = url.pathname.replace(/\/messages?\/?$/, '');
    return json(state, 202, { Location: `${base}/messages/${encodeURIComponent(state.id)}` });
  },
);
