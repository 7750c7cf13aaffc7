import { json, route } from '@/lib/http/route';
import { SEND_MESSAGE } from '@/lib/messages/docs';
import { dryRunSend } from '@/lib/messages/dry-run';
import { sendEncryptedMessage } from '@/lib/messages/encrypted';
import { listMessages } from '@/lib/messages/list';
import { dryRunSchema, messageListQuery, messageSchema, sendMessageBody } from '@/lib/messages/schemas';
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
      otherResponses: [{ status: 200, description: 'With `dry_run: true`: what would happen.', schema: dryRunSchema }],
      errors: [
        'FORBIDDEN',
        'GROUP_NOT_FOUND',
        'DUPLICATE_REQUEST',
        'NO_ONLINE_PHONE',
        'RECIPIENT_OPTED_OUT',
        'QUEUE_FULL',
        'INSUFFICIENT_CREDITS',
      ],
    },
  },
  async ({ db, principal, body }) => {
    const input = {
      from: body.from,
      fromGroup: body.from_group,
      requireOnline: body.require_online,
      sim: body.sim,
      content: body.data ?? body.content ?? '',
      dataPort: body.port,
      requestId: body.request_id,
      sendAt: body.send_at,
      ttlSeconds: body.ttl_s,
      statusCallbackUrl: body.status_callback_url,
      smartEncoding: body.smart_encoding,
    };
    if (body.dry_run) {
      const plan = { ...input, recipients: [body.to], encrypted: body.encrypted };
      return json(await dryRunSend(db, principal.accountId, plan), 200);
    }
    const send = { ...input, to: body.to, priority: body.priority, via: 'v1' as const };
    if (body.encrypted) return sendEncryptedMessage(db, principal.accountId, send);
    return sendMessage(db, principal.accountId, send);
  },
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
