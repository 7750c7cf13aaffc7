import { route } from '@/lib/http/route';
import { listMessages } from '@/lib/messages/list';
import { messageListQuery, sendMessageBody } from '@/lib/messages/schemas';
import { sendMessage } from '@/lib/messages/send';

export const POST = route({ auth: 'account', body: sendMessageBody, status: 201 }, async ({ db, principal, body }) =>
  sendMessage(db, principal.accountId, {
    from: body.from,
    to: body.to,
    content: body.content,
    requestId: body.request_id,
    sendAt: body.send_at,
    ttlSeconds: body.ttl_s,
  }),
);

export const GET = route({ auth: 'account', query: messageListQuery }, async ({ db, principal, query }) =>
  listMessages(db, principal.accountId, query),
);
