import { type Executor, queryRows } from '@/db';
import {
  addDays,
  BUCKETS,
  creditsUsedStatement,
  type DayCountRow,
  type DayRange,
  dailyCountsStatement,
  dayKey,
  rolledUpStatement,
  statsWindow,
} from '@/lib/messages/daily-counts';
import { queueNow } from '@/lib/messages/queue-room';
import type { MessageStats } from './schemas';

type Totals = MessageStats['today'];
type Day = MessageStats['daily'][number];

/**
 * The days of [start, end) not in `rolled`, as ranges of consecutive days: one range from the live
 * days' start to the end of today, unless a day of the window has no rollup yet or a stale one.
 */
function daysToCount(start: Date, end: Date, rolled: ReadonlySet<string>): DayRange[] {
  const ranges: DayRange[] = [];
  for (let day = start; day < end; day = addDays(day, 1)) {
    if (rolled.has(dayKey(day))) continue;
    const last = ranges.at(-1);
    if (last && last.to.getTime() === day.getTime()) last.to = addDays(day, 1);
    else ranges.push({ from: day, to: addDays(day, 1) });
  }
  return ranges;
}

/**
 * The overview's figures for one account: today's and the last 30 days' totals and the daily
 * volume by state. Days older than the live ones come from their rollups (lib/stats/rollups.ts)
 * when those are there and not stale; the other days are counted from messages_account_created_idx.
 * Credits likewise: a rolled day's from its row, the others' from the ledger's index.
 */
export async function messageStats(
  executor: Executor,
  accountId: string,
  now: Date = new Date(),
): Promise<MessageStats> {
  const { start, liveStart, today, end } = statsWindow(now);
  const rolled = await queryRows<Omit<Day, 'date'> & { day: string; credits_used: number | null }>(
    executor,
    rolledUpStatement(accountId, start, liveStart),
  );
  const rolledDays = new Set(rolled.map((row) => row.day));
  const live = await queryRows<DayCountRow>(
    executor,
    dailyCountsStatement(accountId, daysToCount(start, end, rolledDays)),
  );
  // Credits: a rolled day's from its row, the other days' (today's apart) from the ledger.
  const withCredits = rolled.filter((row) => row.credits_used !== null);
  const [todayCredits] = await queryRows<{ used: number }>(
    executor,
    creditsUsedStatement(accountId, [{ from: today, to: end }]),
  );
  const [otherCredits] = await queryRows<{ used: number }>(
    executor,
    creditsUsedStatement(accountId, daysToCount(start, today, new Set(withCredits.map((row) => row.day)))),
  );
  const creditsToday = Number(todayCredits?.used ?? 0);
  const creditsPeriod =
    creditsToday + Number(otherCredits?.used ?? 0) + withCredits.reduce((n, row) => n + Number(row.credits_used), 0);
  const daily = new Map<string, Day>();
  for (let day = start; day < end; day = addDays(day, 1)) {
    const date = dayKey(day);
    daily.set(date, { date, queued: 0, sent: 0, delivered: 0, failed: 0, received: 0 });
  }
  for (const row of rolled) {
    const day = daily.get(row.day);
    if (day) for (const bucket of BUCKETS) day[bucket] = Number(row[bucket]);
  }
  for (const row of live) {
    const day = daily.get(row.day);
    if (day) day[row.bucket] += Number(row.count);
  }
  const todayKey = dayKey(today);
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
      creditsToday,
    ),
    last_30_days: sum(days, creditsPeriod),
    daily: days,
  };
}
