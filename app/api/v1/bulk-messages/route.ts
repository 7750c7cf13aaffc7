import { withTaggedContacts } from '@/lib/contacts/recipients';
import { json, route } from '@/lib/http/route';
import { SEND_BULK } from '@/lib/messages/docs';
import { MAX_BULK_RECIPIENTS } from '@/lib/messages/limits';
import { dryRun, submitBulk } from '@/lib/messages/pipeline';
import { bulkCreatedSchema, dryRunSchema, sendBulkBody } from '@/lib/messages/schemas';

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
      otherResponses: [{ status: 200, description: 'With `dry_run: true`: what would happen.', schema: dryRunSchema }],
      errors: [
        'FORBIDDEN',
        'GROUP_NOT_FOUND',
        'NO_ONLINE_PHONE',
        'RECIPIENT_OPTED_OUT',
        'RECIPIENT_QUOTA_REACHED',
        'QUEUE_FULL',
        'INSUFFICIENT_CREDITS',
        'PAYLOAD_TOO_LARGE',
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
      recipients: await withTaggedContacts(
        db,
        principal.accountId,
        body.recipients,
        body.contact_tags,
        MAX_BULK_RECIPIENTS,
      ),
      content: body.content,
      sendAt: body.send_at,
      ttlSeconds: body.ttl_s,
      priority: body.priority,
      statusCallbackUrl: body.status_callback_url,
      encrypted: body.encrypted,
      smartEncoding: body.smart_encoding,
    };
    if (body.dry_run) return json(await dryRun(db, principal.accountId, input), 200);
    return submitBulk(db, principal.accountId, input);
  },
);
