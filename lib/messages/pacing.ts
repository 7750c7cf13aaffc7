import { type SQL, sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import type { HeldReason } from '@/db/schema';
import { quotaSimSql } from './quota';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/** A phone's pacing settings (the columns of `phones`). */
export type PacingLimits = {
  messagesPerMinute: number;
  hourlyCap: number | null;
  dailyCap: number | null;
  jitterSeconds: number;
};

export type Pacing = {
  /** How many messages the phone may be handed now. */
  allowance: number;
  /** When the allowance grows again, if it is used up (ms from now). */
  refillInMs?: number;
  /** The cap that holds the phone's messages, when one is used up (not the per-minute pace or the jitter). */
  heldBy?: HeldReason;
};

/** What a phone was handed: in the last minute, the last hour (rolling) and the UTC day so far. */
export type DispatchCounts = {
  lastMinute: number;
  lastHour: number;
  today: number;
  /** The oldest hand-out of the last minute and of the last hour, and the latest of all. */
  oldestInMinute: Date | null;
  oldestInHour: Date | null;
  latest: Date | null;
};

export function utcMidnight(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
}

export const NONE: DispatchCounts = {
  lastMinute: 0,
  lastHour: 0,
  today: 0,
  oldestInMinute: null,
  oldestInHour: null,
  latest: null,
};

const dateOrNull = (value: Date | string | null) => (value === null ? null : new Date(value));

/**
 * The outbound messages of alias `m` that were handed out at least once, as messages_phone_handed_idx
 * holds them (db/schema/messages.ts, the same condition). A message leaves `queued` only by being
 * handed out (or cancelled), and goes back to it only by a retry or a reroute after a failure, each of
 * which counts an attempt (state-machine.ts `requeueMessage`): so every message with a `dispatched`
 * history row is among these, and a queued message never yet claimed is not.
 */
export function handedOutSql(m: SQL): SQL {
  return sql`${m}.direction = 'outbound' and (${m}.status <> 'queued' or ${m}.attempts > 1)`;
}

/**
 * What each of `phoneIds` was handed (its `dispatched` history rows) in the last minute, the last
 * hour and the UTC day, reached through messages_phone_handed_idx (a message dispatched in the
 * window was updated in it).
 */
export async function dispatchCounts(
  executor: Executor,
  accountId: string,
  phoneIds: string[],
  now: Date,
  options: CountOptions = {},
): Promise<Map<string, DispatchCounts>> {
  const counts = new Map(phoneIds.map((id) => [id, NONE]));
  for (const row of await handOutRows(executor, accountId, phoneIds, now, false, options)) {
    counts.set(row.phoneId, row.counts);
  }
  return counts;
}

/**
 * `andLater`: hand-outs after `now` count too, in every window. For a count sent before the time
 * its pacing is judged at is known (a claim's, sent behind its lock, lib/messages/claim.ts): each
 * window then starts a little early and runs on, so it holds every hand-out the later windows
 * would, and perhaps a few more (never fewer).
 */
type CountOptions = { andLater?: boolean };

/**
 * `dispatchCounts` per SIM slot of each phone, as its caps count them (quota.ts `quotaSimSql`): a
 * phone that reports fewer than two SIMs has all in slot 1. A slot handed nothing is absent.
 */
export async function dispatchCountsBySim(
  executor: Executor,
  accountId: string,
  phoneIds: string[],
  now: Date,
): Promise<Map<string, Map<number, DispatchCounts>>> {
  const counts = new Map(phoneIds.map((id) => [id, new Map<number, DispatchCounts>()]));
  for (const row of await handOutRows(executor, accountId, phoneIds, now, true)) {
    counts.get(row.phoneId)?.set(row.sim, row.counts);
  }
  return counts;
}

async function handOutRows(
  executor: Executor,
  accountId: string,
  phoneIds: string[],
  now: Date,
  bySim: boolean,
  { andLater = false }: CountOptions = {},
): Promise<Array<{ phoneId: string; sim: number; counts: DispatchCounts }>> {
  if (phoneIds.length === 0) return [];
  const minuteAgo = new Date(now.getTime() - MINUTE_MS).toISOString();
  const hourAgo = new Date(now.getTime() - HOUR_MS).toISOString();
  const midnight = utcMidnight(now);
  const windowStart = new Date(Math.min(now.getTime() - HOUR_MS, midnight.getTime())).toISOString();
  const rows = await queryRows<{
    phone_id: string;
    sim: number;
    last_minute: number;
    last_hour: number;
    today: number;
    oldest_in_minute: Date | string | null;
    oldest_in_hour: Date | string | null;
    latest: Date | string | null;
  }>(
    executor,
    sql`
      select m.phone_id, ${bySim ? quotaSimSql(sql`m.sim`) : sql`1`} as sim,
        count(*) filter (where h.at > ${minuteAgo}::timestamptz)::int as last_minute,
        count(*) filter (where h.at > ${hourAgo}::timestamptz)::int as last_hour,
        count(*) filter (where h.at >= ${midnight.toISOString()}::timestamptz)::int as today,
        min(h.at) filter (where h.at > ${minuteAgo}::timestamptz) as oldest_in_minute,
        min(h.at) filter (where h.at > ${hourAgo}::timestamptz) as oldest_in_hour,
        max(h.at) as latest
      from messages m
      join message_status_history h on h.account_id = m.account_id and h.message_id = m.id and h.status = 'dispatched'
      ${
        bySim
          ? sql`join phones p on p.account_id = m.account_id and p.id = m.phone_id
      left join devices d on d.id = p.device_id`
          : sql``
      }
      where m.account_id = ${accountId}::uuid and m.phone_id = any(${`{${phoneIds.join(',')}}`}::uuid[])
        and ${handedOutSql(sql`m`)}
        and m.updated_at >= ${windowStart}::timestamptz
        and h.at >= ${windowStart}::timestamptz ${andLater ? sql`` : sql`and h.at <= ${now.toISOString()}::timestamptz`}
      group by 1, 2
    `,
  );
  return rows.map((row) => ({
    phoneId: row.phone_id,
    sim: Number(row.sim),
    counts: {
      lastMinute: Number(row.last_minute),
      lastHour: Number(row.last_hour),
      today: Number(row.today),
      oldestInMinute: dateOrNull(row.oldest_in_minute),
      oldestInHour: dateOrNull(row.oldest_in_hour),
      latest: dateOrNull(row.latest),
    },
  }));
}

/**
 * The delay a phone with `jitterSeconds` waits after a hand-out at `latest`: random, from 0 to
 * jitterSeconds, but the same for every look at that hand-out (so a claim that looks again does
 * not draw again), derived from its time.
 */
export function jitterAfter(latest: Date, jitterSeconds: number): number {
  if (jitterSeconds <= 0) return 0;
  const mixed = Math.imul((latest.getTime() % 2_147_483_647) | 0, 2_654_435_761) >>> 0;
  return Math.round((mixed / 2 ** 32) * jitterSeconds * 1000);
}

/**
 * Carriers block phones that send too fast: a phone is handed at most `messagesPerMinute` in any
 * rolling minute, with caps at most `hourlyCap` in any rolling hour and `dailyCap` per UTC day,
 * and with a jitter one message at a time, each after a random delay of up to `jitterSeconds`.
 * Pure: `counts` are the phone's hand-outs (`dispatchCounts`).
 */
export function pacingFrom(limits: PacingLimits, counts: DispatchCounts, now: Date): Pacing {
  const perMinuteLeft = limits.messagesPerMinute - counts.lastMinute;
  const hourlyLeft = limits.hourlyCap === null ? Number.POSITIVE_INFINITY : limits.hourlyCap - counts.lastHour;
  const dailyLeft = limits.dailyCap === null ? Number.POSITIVE_INFINITY : limits.dailyCap - counts.today;
  let allowance = Math.max(0, Math.min(perMinuteLeft, hourlyLeft, dailyLeft));
  if (dailyLeft <= 0) {
    return { allowance: 0, refillInMs: utcMidnight(now).getTime() + DAY_MS - now.getTime(), heldBy: 'daily_cap' };
  }
  if (hourlyLeft <= 0) {
    const oldest = counts.oldestInHour?.getTime() ?? now.getTime();
    return { allowance: 0, refillInMs: Math.max(1, oldest + HOUR_MS - now.getTime()), heldBy: 'hourly_cap' };
  }
  if (allowance === 0) {
    const oldest = counts.oldestInMinute?.getTime() ?? now.getTime();
    return { allowance, refillInMs: Math.max(1, oldest + MINUTE_MS - now.getTime()) };
  }
  if (limits.jitterSeconds > 0) {
    if (counts.latest) {
      const nextAt = counts.latest.getTime() + jitterAfter(counts.latest, limits.jitterSeconds);
      if (nextAt > now.getTime()) return { allowance: 0, refillInMs: nextAt - now.getTime() };
    }
    allowance = 1;
  }
  return { allowance };
}

/**
 * The pacing of a phone with several SIMs: `phone` is its pace per minute and jitter (shared: one
 * radio, one app), `sims` the allowance of each of `slots` under the hourly and daily caps, which
 * each SIM has on its own; a slot whose cap is used up has `heldBy`.
 */
export type SimPacing = { phone: Pacing; sims: Map<number, Pacing> };

/** Pure: `SimPacing` from the phone's hand-outs (`total`) and each slot's (`bySim`). */
export function simPacingFrom(
  limits: PacingLimits,
  total: DispatchCounts,
  bySim: Map<number, DispatchCounts>,
  slots: number[],
  now: Date,
): SimPacing {
  const phone = pacingFrom({ ...limits, hourlyCap: null, dailyCap: null }, total, now);
  const capsOnly = { ...limits, messagesPerMinute: Number.POSITIVE_INFINITY, jitterSeconds: 0 };
  const sims = new Map(slots.map((slot) => [slot, pacingFrom(capsOnly, bySim.get(slot) ?? NONE, now)]));
  return { phone, sims };
}

/**
 * `SimPacing` now, of a phone whose device reports the SIM `slots`, from its hand-outs in all
 * (`total`, its `dispatchCounts`); the caller holds the phone's row lock.
 */
export async function simPacingOf(
  tx: Executor,
  phone: PacingLimits & { id: string; accountId: string },
  slots: number[],
  now: Date,
  total: Map<string, DispatchCounts>,
): Promise<SimPacing> {
  const bySim = await dispatchCountsBySim(tx, phone.accountId, [phone.id], now);
  return simPacingFrom(phone, total.get(phone.id) ?? NONE, bySim.get(phone.id) ?? new Map(), slots, now);
}
