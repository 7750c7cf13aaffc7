import { sql } from 'drizzle-orm';
import { type Executor, getDb, queryRows, withQueryOrigin } from '@/db';
import { PHONE_STATUSES } from '@/db/schema';
import { config } from '@/lib/config';
import { log } from '@/lib/log';

/**
 * The gauges that describe the whole database, the same on every instance (queued and dispatched
 * messages, the oldest queued one on an online phone, phones by status, pending webhook
 * deliveries): read with one statement at most every REFRESH_MS per instance, on a scrape, never
 * more than one at a time. A scrape in between reports the last reading.
 */
export const GLOBAL_GAUGES_REFRESH_MS = 15_000;

export type GlobalReading = {
  queued: number;
  dispatched: number;
  accountsQueueFull: number;
  oldestQueuedAgeS: number;
  phones: Record<string, number>;
  webhooksPending: number;
  oldestPendingWebhookAgeS: number;
};

type Row = {
  queued: number | string;
  dispatched: number | string;
  accounts_queue_full: number | string;
  oldest_queued_s: number | string | null;
  phones: Record<string, number | string> | string | null;
  webhooks_pending: number | string;
  oldest_pending_webhook_s: number | string | null;
};

/**
 * One statement, each part on a partial index of what it counts (messages_expiry_idx for queued
 * and dispatched, messages_claim_idx for the oldest queued, webhook_deliveries_account_due_idx for
 * pending deliveries; account_queues, one row per account that sent, for the accounts whose queue is
 * full). "Oldest" counts only what is due now: a message scheduled for later, or a
 * delivery whose webhook is paused, is not late.
 */
export async function readGlobalGauges(executor: Executor): Promise<GlobalReading> {
  return withQueryOrigin('task:metrics gauges', async () => {
    const [row] = await queryRows<Row>(
      executor,
      sql`
      select
        (select count(*) from messages where status = 'queued')::int as queued,
        (select count(*) from messages where status = 'dispatched')::int as dispatched,
        (select count(*) from account_queues q join accounts a on a.id = q.account_id
          where q.queued >= least(a.max_queued_messages, ${config.accountMaxQueued}::int))::int as accounts_queue_full,
        (select extract(epoch from now() - min(greatest(m.created_at, m.send_at)))::float8
          from messages m join phones p on p.id = m.phone_id
          where m.status = 'queued' and m.send_at <= now() and p.status = 'online') as oldest_queued_s,
        (select coalesce(json_object_agg(status, n), '{}'::json)
          from (select status, count(*)::int as n from phones group by status) s) as phones,
        (select count(*) from webhook_deliveries where status = 'pending')::int as webhooks_pending,
        (select extract(epoch from now() - min(d.created_at))::float8
          from webhook_deliveries d join webhooks w on w.id = d.webhook_id
          where d.status = 'pending' and d.next_attempt_at <= now() and w.enabled) as oldest_pending_webhook_s
    `,
    );
    const phones = typeof row?.phones === 'string' ? JSON.parse(row.phones) : (row?.phones ?? {});
    return {
      queued: Number(row?.queued ?? 0),
      dispatched: Number(row?.dispatched ?? 0),
      accountsQueueFull: Number(row?.accounts_queue_full ?? 0),
      oldestQueuedAgeS: Math.max(0, Number(row?.oldest_queued_s ?? 0)),
      phones: Object.fromEntries(PHONE_STATUSES.map((status) => [status, Number(phones[status] ?? 0)])),
      webhooksPending: Number(row?.webhooks_pending ?? 0),
      oldestPendingWebhookAgeS: Math.max(0, Number(row?.oldest_pending_webhook_s ?? 0)),
    };
  });
}

type Cache = { reading?: GlobalReading; readAt: number; inFlight?: Promise<void> };

// Per process, whichever bundle scrapes.
const globalForGauges = globalThis as typeof globalThis & { __simgateGlobalGauges?: Cache };
globalForGauges.__simgateGlobalGauges ??= { readAt: Number.NEGATIVE_INFINITY };
const cache = globalForGauges.__simgateGlobalGauges;

/**
 * Brings the global gauges up to date if the last reading is older than REFRESH_MS, waiting for
 * the reading already under way if there is one. A failed reading keeps the last values (and is
 * tried again at the next scrape): the scrape still answers.
 */
export async function refreshGlobalGauges(now = Date.now()): Promise<void> {
  if (cache.inFlight) return cache.inFlight;
  if (now - cache.readAt < GLOBAL_GAUGES_REFRESH_MS) return;
  cache.inFlight = (async () => {
    try {
      cache.reading = await readGlobalGauges(await getDb());
      cache.readAt = Date.now();
    } catch (error) {
      log.warn({ err: error }, 'metrics: the global gauges could not be read');
    } finally {
      cache.inFlight = undefined;
    }
  })();
  return cache.inFlight;
}

/** The last reading, brought up to date first when it is older than REFRESH_MS; undefined until one succeeds. */
export async function globalReading(now = Date.now()): Promise<GlobalReading | undefined> {
  await refreshGlobalGauges(now);
  return cache.reading;
}

/** Tests: the next scrape reads the database again. */
export function forgetGlobalGauges(): void {
  cache.reading = undefined;
  cache.readAt = Number.NEGATIVE_INFINITY;
}
