import { randomUUID } from 'node:crypto';
import { and, asc, eq, sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import { type EventType, phones, webhooks } from '@/db/schema';
import { recordAudit } from '@/lib/audit/record';
import { validationError } from '@/lib/errors';
import { withTransaction } from '@/lib/transactions';
import { assertRoomForWebhook } from '@/lib/webhooks/manage';
import { generateWebhookSecret, sealWebhookSecret } from '@/lib/webhooks/signing';
import { webhookUrl } from '@/lib/webhooks/url';
import { assertReachableUrl } from '@/lib/webhooks/validate';
import { SMSGATE_EVENTS, type SmsgateEvent } from './schemas';

/** Every event name SMSGate's reference accepts; those outside SMSGATE_EVENTS are stored and never fire. */
export const SMSGATE_EVENT_NAMES = [
  'sms:received',
  'sms:data-received',
  'sms:sent',
  'sms:delivered',
  'sms:failed',
  'sms:cancelled',
  'system:ping',
  'mms:received',
  'mms:downloaded',
  'app:started',
  'sms:batch:received',
  'sms:batch:data-received',
  'mms:batch:received',
  'mms:batch:downloaded',
] as const;

export type SmsgateWebhookWire = { id: string; url: string; event: string; deviceId: string | null };

type Row = typeof webhooks.$inferSelect;

function present(row: Row): SmsgateWebhookWire {
  return { id: row.extId ?? row.id, url: row.url, event: row.extEvent ?? '', deviceId: row.extDeviceId };
}

export async function listSmsgateWebhooks(executor: Executor, accountId: string): Promise<SmsgateWebhookWire[]> {
  const rows = await executor
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.accountId, accountId), eq(webhooks.kind, 'smsgate')))
    .orderBy(asc(webhooks.createdAt), asc(webhooks.id));
  return rows.map(present);
}

/**
 * POST /webhooks: registers a webhook in SMSGate's format, delivered by Simgate's durable worker;
 * an `id` that exists (in this account) replaces that webhook. https only, and the address rules
 * of every webhook (no private networks in server mode).
 */
export async function registerSmsgateWebhook(
  executor: Executor,
  accountId: string,
  input: { id?: string | null; url: string; event: string; deviceId?: string | null },
): Promise<SmsgateWebhookWire> {
  const parsedUrl = webhookUrl.safeParse(input.url);
  if (!parsedUrl.success) throw validationError('url', parsedUrl.error.issues[0]?.message ?? 'not a valid https URL');
  if (!(SMSGATE_EVENT_NAMES as readonly string[]).includes(input.event)) {
    throw validationError('event', `must be one of ${SMSGATE_EVENT_NAMES.join(', ')}`);
  }
  await assertReachableUrl(parsedUrl.data);
  let phoneFilters: string[] = [];
  if (input.deviceId) {
    const [phone] = await executor
      .select({ phone: phones.phone })
      .from(phones)
      .where(and(eq(phones.accountId, accountId), sql`${phones.id}::text = ${input.deviceId}::text`));
    if (!phone) throw validationError('deviceId', 'no device with this id');
    phoneFilters = [phone.phone];
  }
  const events: EventType[] = [...(SMSGATE_EVENTS[input.event as SmsgateEvent] ?? [])];
  const extId = input.id ?? randomUUID();
  return withTransaction(executor, async (tx) => {
    // A new webhook counts toward the plan; replacing one of the same id does not.
    const [replaced] = await tx
      .select({ id: webhooks.id })
      .from(webhooks)
      .where(and(eq(webhooks.accountId, accountId), eq(webhooks.kind, 'smsgate'), eq(webhooks.extId, extId)));
    if (!replaced) await assertRoomForWebhook(tx, accountId);
    const [row] = await queryRows<{ id: string; inserted: boolean }>(
      tx,
      sql`
        insert into webhooks (account_id, kind, url, ext_id, ext_event, ext_device_id, events, phone_filters, secret_encrypted)
        values (${accountId}::uuid, 'smsgate', ${parsedUrl.data}, ${extId}, ${input.event}, ${input.deviceId ?? null},
          ${`{${events.join(',')}}`}::text[], ${`{${phoneFilters.join(',')}}`}::text[], ${sealWebhookSecret(generateWebhookSecret())})
        on conflict (account_id, ext_id) where kind = 'smsgate' do update
          set url = excluded.url, ext_event = excluded.ext_event, ext_device_id = excluded.ext_device_id,
            events = excluded.events, phone_filters = excluded.phone_filters, enabled = true, disabled_reason = null,
            failing_since = null, updated_at = now()
        returning id, (xmax = 0) as inserted
      `,
    );
    if (!row) throw new Error('registerSmsgateWebhook: upsert returned no row');
    await recordAudit(tx, {
      accountId,
      action: row.inserted ? 'webhook.created' : 'webhook.updated',
      target: row.id,
      details: { url: parsedUrl.data, format: 'smsgate', event: input.event },
    });
    return { id: extId, url: parsedUrl.data, event: input.event, deviceId: input.deviceId ?? null };
  });
}

/** DELETE /webhooks/{id}: 204 whether it existed or not (SMSGate's semantics). */
export async function deleteSmsgateWebhook(executor: Executor, accountId: string, extId: string): Promise<void> {
  await withTransaction(executor, async (tx) => {
    const deleted = await tx
      .delete(webhooks)
      .where(and(eq(webhooks.accountId, accountId), eq(webhooks.kind, 'smsgate'), eq(webhooks.extId, extId)))
      .returning({ id: webhooks.id, url: webhooks.url });
    for (const row of deleted) {
      await recordAudit(tx, { accountId, action: 'webhook.deleted', target: row.id, details: { url: row.url } });
    }
  });
}
