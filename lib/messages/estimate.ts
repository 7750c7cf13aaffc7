import { sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import type { SendWindow } from '@/db/schema';
import { effectiveSending } from '@/lib/settings/settings';
import { msUntilOpen } from '@/lib/settings/window';
import { type DispatchCounts, dispatchCounts, type PacingLimits, utcMidnight } from './pacing';

const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Steps a drain is followed for at most: a phone held for ever (a window with no day) has no estimate. */
const MAX_STEPS = 200_000;

/** A phone's queue as the drain model sees it. */
export type DrainInput = {
  limits: PacingLimits;
  /** What the phone was handed lately (pacing.ts `dispatchCounts`). */
  counts: DispatchCounts;
  window: SendWindow | null;
  /** Messages to hand out, the bulk's last one last. */
  messages: number;
  /** When the first of them falls due. */
  start: Date;
};

/**
 * When the phone would be handed the last of `messages`, claimed as claim.ts hands them out: as many
 * at once as its pacing allows (pacing.ts `pacingFrom`), again as soon as the oldest hand-out leaves
 * its rolling minute or hour or the UTC day turns, one at a time after half the jitter on average,
 * and only inside the send window. Hand-outs counted already are taken as made at the oldest of their
 * window (`counts`), so the estimate errs late by at most a minute (or an hour) at the start.
 * Undefined when the drain does not end within MAX_STEPS steps.
 */
export function drainEnd(input: DrainInput): Date | undefined {
  const { limits, counts, window } = input;
  let remaining = input.messages;
  if (remaining <= 0) return input.start;
  // Hand-outs as [time, count], oldest first; the earlier ones at the oldest of their windows.
  const batches: Array<[number, number]> = [];
  const hourOnly = counts.lastHour - counts.lastMinute;
  if (hourOnly > 0) batches.push([counts.oldestInHour?.getTime() ?? input.start.getTime(), hourOnly]);
  if (counts.lastMinute > 0)
    batches.push([counts.oldestInMinute?.getTime() ?? input.start.getTime(), counts.lastMinute]);
  let dayStart = utcMidnight(input.start).getTime();
  let today = counts.today;
  let t = input.start.getTime();
  for (let step = 0; step < MAX_STEPS; step++) {
    const closedFor = msUntilOpen(window, new Date(t));
    if (closedFor > 0) {
      t += closedFor;
      continue;
    }
    if (t >= dayStart + DAY_MS) {
      dayStart = utcMidnight(new Date(t)).getTime();
      today = 0;
    }
    const inMinute = sumSince(batches, t - MINUTE_MS);
    const inHour = sumSince(batches, t - HOUR_MS);
    let allowance = Math.min(
      limits.messagesPerMinute - inMinute,
      limits.hourlyCap === null ? Number.POSITIVE_INFINITY : limits.hourlyCap - inHour,
      limits.dailyCap === null ? Number.POSITIVE_INFINITY : limits.dailyCap - today,
    );
    if (limits.jitterSeconds > 0) allowance = Math.min(allowance, 1);
    if (allowance > 0) {
      const handed = Math.min(allowance, remaining);
      batches.push([t, handed]);
      today += handed;
      remaining -= handed;
      if (remaining === 0) return new Date(t);
    }
    t = nextChange(t, batches, limits, dayStart, allowance > 0);
    while (batches.length > 0 && (batches[0]?.[0] ?? t) <= t - HOUR_MS) batches.shift();
  }
  return undefined;
}

function sumSince(batches: Array<[number, number]>, after: number): number {
  let total = 0;
  for (let i = batches.length - 1; i >= 0; i--) {
    const batch = batches[i] as [number, number];
    if (batch[0] <= after) break;
    total += batch[1];
  }
  return total;
}

/** The next moment the allowance may grow: a hand-out leaving its minute or hour, the day's end, the jitter. */
function nextChange(
  t: number,
  batches: Array<[number, number]>,
  limits: PacingLimits,
  dayStart: number,
  handedOut: boolean,
): number {
  if (limits.jitterSeconds > 0 && handedOut) return t + (limits.jitterSeconds * 1000) / 2;
  const candidates = [dayStart + DAY_MS];
  for (const [at] of batches) {
    if (at + MINUTE_MS > t) candidates.push(at + MINUTE_MS);
    if (at + HOUR_MS > t) candidates.push(at + HOUR_MS);
  }
  return Math.max(t + 1, Math.min(...candidates));
}

/**
 * When the bulk's last message is expected to be handed to its phone: per phone, its queued
 * messages that go before or with the bulk's (its high-priority lane and all due no later than the
 * bulk's last) drained under its pacing, caps, jitter and send window (`drainEnd`), from now; the
 * latest of the phones. Once nothing of the bulk is queued, the time its last message was handed
 * out (null when none was). Computed on each read, so it follows the bulk as it goes.
 */
export async function estimateBulkCompletion(
  executor: Executor,
  accountId: string,
  bulkId: string,
  now: Date = new Date(),
): Promise<Date | null> {
  const queues = await queryRows<{
    phone_id: string;
    group_id: number;
    messages_per_minute: number;
    hourly_cap: number | null;
    daily_cap: number | null;
    jitter_seconds: number;
    ahead: number;
    first_due: Date | string;
  }>(
    executor,
    sql`
      with bulk as (
        select m.phone_id, max(m.send_at) as last_due, min(m.send_at) as first_due from messages m
        where m.account_id = ${accountId}::uuid and m.bulk_id = ${bulkId}::uuid and m.status = 'queued'
        group by m.phone_id
      )
      select p.id as phone_id, p.group_id, p.messages_per_minute, p.hourly_cap, p.daily_cap, p.jitter_seconds,
        bulk.first_due,
        (select count(*)::int from messages q where q.account_id = p.account_id and q.phone_id = p.id
          and q.status = 'queued' and (q.priority = 'high' or q.send_at <= bulk.last_due)) as ahead
      from bulk join phones p on p.account_id = ${accountId}::uuid and p.id = bulk.phone_id
    `,
  );
  if (queues.length === 0) return lastHandOut(executor, accountId, bulkId);
  const counts = await dispatchCounts(
    executor,
    accountId,
    queues.map((queue) => queue.phone_id),
    now,
  );
  const windows = new Map<number, SendWindow | null>();
  let latest = now.getTime();
  for (const queue of queues) {
    const groupId = Number(queue.group_id);
    if (!windows.has(groupId)) {
      windows.set(groupId, (await effectiveSending(executor, accountId, groupId)).send_window);
    }
    const end = drainEnd({
      limits: {
        messagesPerMinute: Number(queue.messages_per_minute),
        hourlyCap: queue.hourly_cap === null ? null : Number(queue.hourly_cap),
        dailyCap: queue.daily_cap === null ? null : Number(queue.daily_cap),
        jitterSeconds: Number(queue.jitter_seconds),
      },
      counts: counts.get(queue.phone_id) as DispatchCounts,
      window: windows.get(groupId) ?? null,
      messages: Number(queue.ahead),
      start: new Date(Math.max(now.getTime(), new Date(queue.first_due).getTime())),
    });
    if (!end) return null;
    latest = Math.max(latest, end.getTime());
  }
  return new Date(latest);
}

async function lastHandOut(executor: Executor, accountId: string, bulkId: string): Promise<Date | null> {
  const [row] = await queryRows<{ at: Date | string | null }>(
    executor,
    sql`select max(h.at) as at from messages m
        join message_status_history h on h.account_id = m.account_id and h.message_id = m.id and h.status = 'dispatched'
        where m.account_id = ${accountId}::uuid and m.bulk_id = ${bulkId}::uuid`,
  );
  return row?.at ? new Date(row.at) : null;
}
