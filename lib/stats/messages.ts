import { type SQL, sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import { queueNow } from '@/lib/messages/queue-room';
import type { MessageStats } from './schemas';

const DAYS = 30;
const DAY_MS = 86_400_000;

type Totals = MessageStats['today'];
type Day = MessageStats['daily'][number];

/** The state buckets of the overview: what a message counts as, by its state now. */
const BUCKET = sql`case
  when direction = 'inbound' then 'received'
  when status in ('queued', 'dispatched', 'cancelling') then 'queued'
  when status = 'sent' then 'sent'
  when status = 'delivered' then 'delivered'
  else 'failed' end`;

/**
 * The account's messages since `start` by UTC day and bucket: an index-only scan of
 * messages_account_created_idx (whose key holds kind, direction and status), days formatted per group.
 */
export function dailyCountsStatement(accountId: string, start: Date): SQL {
  return sql`
    select to_char(day, 'YYYY-MM-DD') as day, bucket, count from (
      select (created_at at time zone 'UTC')::date as day, ${BUCKET} as bucket, count(*)::int as count
      from messages
      where account_id = ${accountId}::uuid and created_at >= ${start.toISOString()}::timestamptz and kind = 'message'
      group by 1, 2
    ) days
  `;
}

/** Credits used (charges less refunds) today and since `start`: an index-only scan of credit_ledger_account_created_idx. */
export function creditTotalsStatement(accountId: string, today: Date, start: Date): SQL {
  return sql`
    select
      coalesce(-sum(amount) filter (where created_at >= ${today.toISOString()}::timestamptz), 0)::int as today,
      coalesce(-sum(amount), 0)::int as period
    from credit_ledger
    where account_id = ${accountId}::uuid and kind in ('message_charge', 'refund')
      and created_at >= ${start.toISOString()}::timestamptz
  `;
}

/**
 * The overview's figures for one account: today's and the last 30 days' totals and the daily
 * volume by state, from two grouped queries over messages_account_created_idx and the ledger.
 */
export async function messageStats(
  executor: Executor,
  accountId: string,
  now: Date = new Date(),
): Promise<MessageStats> {
  const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const start = new Date(today.getTime() - (DAYS - 1) * DAY_MS);
  const rows = await queryRows<{ day: string; bucket: keyof Omit<Day, 'date'>; count: number }>(
    executor,
    dailyCountsStatement(accountId, start),
  );
  const credits = await queryRows<{ today: number; period: number }>(
    executor,
    creditTotalsStatement(accountId, today, start),
  );
  const daily = new Map<string, Day>();
  for (let i = 0; i < DAYS; i++) {
    const date = new Date(start.getTime() + i * DAY_MS).toISOString().slice(0, 10);
    daily.set(date, { date, queued: 0, sent: 0, delivered: 0, failed: 0, received: 0 });
  }
  for (const row of rows) {
    const day = daily.get(row.day);
    if (day) day[row.bucket] += Number(row.count);
  }
  const todayKey = today.toISOString().slice(0, 10);
  const sum = (days: Day[], credits_used: number): Totals => ({
    sent: days.reduce((n, d) => n + d.sent + d.delivered, 0),
    delivered: days.reduce((n, d) => n + d.delivered, 0),
    failed: days.reduce((n, d) => n + d.failed, 0),
    received: days.reduce((n, d) => n + d.received, 0),
    credits_used,
  });
  const days = [...daily.values()];
  const queue = await queueNow(executor, accountId);
  return {
    queue: { queued: queue.queued, max_queued_messages: queue.limit },
    today: sum(
      days.filter((d) => d.date === todayKey),
      Number(credits[0]?.today ?? 0),
    ),
    last_30_days: sum(days, Number(credits[0]?.period ?? 0)),
    daily: days,
  };
}
