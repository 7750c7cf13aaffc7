import { and, asc, eq, sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import { type EventType, webhooks } from '@/db/schema';
import { recordAudit } from '@/lib/audit/record';
import { withTransaction } from '@/lib/transactions';
import { detachMessagesFromWebhooks } from './detach';
import { assertRoomForWebhook } from './manage';
import { generateWebhookSecret, sealWebhookSecret } from './signing';

/**
 * Webhooks that an integrator registers under an id of its own (`ext_id`, kind `smsgate`: the SMSGate
 * integrator API), with the event name and device it gave; one row per id in the account
 * (webhooks_smsgate_ext_id_key).
 */
export type ExternalWebhook = {
  extId: string;
  url: string;
  extEvent: string;
  extDeviceId: string | null;
  /** The Simgate events the row receives, and the phone numbers it is limited to (none: every phone). */
  events: EventType[];
  phoneFilters: string[];
};

/** The account's webhooks registered under an id of their own, oldest first. */
export async function listExternalWebhooks(executor: Executor, accountId: string) {
  return executor
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.accountId, accountId), eq(webhooks.kind, 'smsgate')))
    .orderBy(asc(webhooks.createdAt), asc(webhooks.id));
}

/**
 * Registers the webhook, replacing (and enabling again) the account's one of the same id. A new
 * webhook counts toward the plan; replacing one does not. Audited as created or updated.
 */
export async function putExternalWebhook(executor: Executor, accountId: string, hook: ExternalWebhook): Promise<void> {
  await withTransaction(executor, async (tx) => {
    const [replaced] = await tx
      .select({ id: webhooks.id })
      .from(webhooks)
      .where(and(eq(webhooks.accountId, accountId), eq(webhooks.kind, 'smsgate'), eq(webhooks.extId, hook.extId)));
    if (!replaced) await assertRoomForWebhook(tx, accountId);
    const [row] = await queryRows<{ id: string; inserted: boolean }>(
      tx,
      sql`
        insert into webhooks (account_id, kind, url, ext_id, ext_event, ext_device_id, events, phone_filters, secret_encrypted)
        values (${accountId}::uuid, 'smsgate', ${hook.url}, ${hook.extId}, ${hook.extEvent}, ${hook.extDeviceId},
          ${`{${hook.events.join(',')}}`}::text[], ${`{${hook.phoneFilters.join(',')}}`}::text[], ${sealWebhookSecret(generateWebhookSecret())})
        on conflict (account_id, ext_id) where kind = 'smsgate' do update
          set url = excluded.url, ext_event = excluded.ext_event, ext_device_id = excluded.ext_device_id,
            events = excluded.events, phone_filters = excluded.phone_filters, enabled = true, disabled_reason = null,
            failing_since = null, updated_at = excluded.updated_at
        returning id, (xmax = 0) as inserted
      `,
    );
    if (!row) throw new Error('putExternalWebhook: upsert returned no row');
    await recordAudit(tx, {
      accountId,
      action: row.inserted ? 'webhook.created' : 'webhook.updated',
      target: row.id,
      details: { url: hook.url, format: 'smsgate', event: hook.extEvent },
    });
  });
}

/** Deletes the account's webhook of this id, if it has one, audited. */
export async function deleteExternalWebhook(executor: Executor, accountId: string, extId: string): Promise<void> {
  await withTransaction(executor, async (tx) => {
    const deleted = await tx
      .delete(webhooks)
      .where(and(eq(webhooks.accountId, accountId), eq(webhooks.kind, 'smsgate'), eq(webhooks.extId, extId)))
      .returning({ id: webhooks.id, url: webhooks.url });
    await detachMessagesFromWebhooks(
      tx,
      accountId,
      deleted.map((row) => row.id),
    );
    for (const row of deleted) {
      await recordAudit(tx, { accountId, action: 'webhook.deleted', target: row.id, details: { url: row.url } });
    }
  });
}
