import { route } from '@/lib/http/route';
import { sendBulk } from '@/lib/messages/bulk';
import { SEND_BULK } from '@/lib/messages/docs';
import { bulkCreatedSchema, sendBulkBody } from '@/lib/messages/schemas';

export const POST = route(
  {
    auth: 'account',
    body: sendBulkBody,
    status: 201,
    doc: {
      operationId: 'sendBulkMessage',
      summary: 'Send one text to many recipients',
      description: SEND_BULK,
      tags: ['Messages'],
      response: { description: 'The bulk message and its messages.', schema: bulkCreatedSchema },
      errors: ['FORBIDDEN', 'INSUFFICIENT_CREDITS'],
    },
  },
  async ({ db, principal, body }) =>
    sendBulk(db, principal.accountId, {
      from: body.from,
      recipients: body.recipients,
      content: body.content,
      sendAt: body.send_at,
      ttlSeconds: body.ttl_s,
    }),
);
