import { json, route } from '@/lib/http/route';
import { SEND_MESSAGE } from '@/lib/messages/docs';
import { listMessages } from '@/lib/messages/list';
import { dryRun, submitMessage } from '@/lib/messages/pipeline';
import { dryRunSchema, messageListQuery, messageSchema, sendMessageBody } from '@/lib/messages/schemas';
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
        'RECIPIENT_QUOTA_REACHED',
        'QUEUE_FULL',
        'INSUFFICIENT_CREDITS',
      ],
    },
  },
  async ({ db, principal, body }) => {
    const input = {
      origin: 'api' as const,
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
      return json(await dryRun(db, principal.accountId, plan), 200);
    }
    return submitMessage(db, principal.accountId, {
      ...input,
      to: body.to,
      priority: body.priority,
      encrypted: body.encrypted,
    });
  },
);

export const GET = route(
  {
    auth: 'account',
    query: messageListQuery,
    doc: {
      operationId: 'listMessages',
      summary: 'List messages',
      description:
        'Newest first; `status`, `direction`, `phone` and the creation range narrow the list. A search (`q`) whose statement runs past `SEARCH_BUDGET_MS` (2 s by default) answers 422 `SEARCH_TOO_BROAD`: narrow it by date, state, direction or phone, or search rarer words.',
      tags: ['Messages'],
      response: { description: 'A page of messages.', schema: pageOf(messageSchema) },
      errors: ['SEARCH_TOO_BROAD'],
    },
  },
  async ({ db, principal, query }) => listMessages(db, principal.accountId, query),
);
