import { sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';

const MINUTE_MS = 60_000;

export type Pacing = {
  /** How many messages the phone may be handed now. */
  allowance: number;
  /** When the allowance grows again, if it is used up (ms from now). */
  refillInMs?: number;
};

function utcMidnight(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

/**
 * Carriers block phones that send too fast: a phone is handed at most `messagesPerMinute` in any
 * rolling minute and, with a cap, `dailyCap` per UTC day. Counts the phone's `dispatched` history
 * rows, reached through messages_phone_updated_idx (a message dispatched in the window was
 * updated in it). The caller holds the phone's row lock, so concurrent claims count each other.
 */
export async function pacingOf(
  tx: Executor,
  phone: { id: string; accountId: string; messagesPerMinute: number; dailyCap: number | null },
  now: Date,
): Promise<Pacing> {
  const minuteAgo = new Date(now.getTime() - MINUTE_MS);
  const midnight = utcMidnight(now);
  const windowStart = new Date(Math.min(minuteAgo.getTime(), midnight.getTime())).toISOString();
  const [counts] = await queryRows<{ last_minute: number; today: number; oldest_in_minute: Date | string | null }>(
    tx,
    sql`
      select
        count(*) filter (where h.at > ${minuteAgo.toISOString()}::timestamptz)::int as last_minute,
        count(*) filter (where h.at >= ${midnight.toISOString()}::timestamptz)::int as today,
        min(h.at) filter (where h.at > ${minuteAgo.toISOString()}::timestamptz) as oldest_in_minute
      from messages m
      join message_status_history h on h.account_id = m.account_id and h.message_id = m.id and h.status = 'dispatched'
      where m.account_id = ${phone.accountId}::uuid and m.phone_id = ${phone.id}
        and m.direction = 'outbound'
        and m.updated_at >= ${windowStart}::timestamptz
        and h.at >= ${windowStart}::timestamptz
    `,
  );
  const lastMinute = Number(counts?.last_minute ?? 0);
  const today = Number(counts?.today ?? 0);
  const perMinuteLeft = phone.messagesPerMinute - lastMinute;
  const dailyLeft = phone.dailyCap === null ? Number.POSITIVE_INFINITY : phone.dailyCap - today;
  const allowance = Math.max(0, Math.min(perMinuteLeft, dailyLeft));
  if (allowance > 0) return { allowance };
  if (dailyLeft <= 0) return { allowance, refillInMs: midnight.getTime() + 24 * 3600_000 - now.getTime() };
  const oldest = counts?.oldest_in_minute ? new Date(counts.oldest_in_minute).getTime() : now.getTime();
  return { allowance, refillInMs: Math.max(1, oldest + MINUTE_MS - now.getTime()) };
}
