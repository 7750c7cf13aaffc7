import { route } from '@/lib/http/route';
import { sendBulk } from '@/lib/messages/bulk';
import { sendBulkBody } from '@/lib/messages/schemas';

export const POST = route({ auth: 'account', body: sendBulkBody, status: 201 }, async ({ db, principal, body }) =>
  sendBulk(db, principal.accountId, {
    from: body.from,
    recipients: body.recipients,
    content: body.content,
    sendAt: body.send_at,
    ttlSeconds: body.ttl_s,
  }),
);
