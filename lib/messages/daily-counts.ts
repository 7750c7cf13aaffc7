import { asc, type SQL, sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import { accounts } from '@/db/schema';
import { withTransaction } from '@/lib/transactions';

/**
 * The overview's daily rollups (table message_daily_counts, docs/performance.md "Statistics from
 * daily rollups"). The statistics read a day's counts from its row when the day is older than the
 * live days and its row is not stale, and count every other day of the window from the messages
 * themselves. The sweep below counts the days that have no row or a stale one; the paths that change
 * an old message mark its day stale (markChangedDays, markEveryDayChanged), in the same transaction
 * as the change, so a row that is not stale always holds the day's counts as they are now.
 */

export const STATS_DAYS = 30;
/** Today and the two days before it are always counted live: most state changes happen there. */
export const LIVE_DAYS = 3;
const DAY_MS = 86_400_000;
/**
 * A day counted longer ago than this is counted again by the next pass over every account (one a
 * day): what the marks miss (a change by the previous release during a rolling upgrade, an UPDATE by
 * hand) stays wrong for a day or two at most.
 */
const RECOUNT_AFTER_MS = DAY_MS / 2;
/** Whether a rollup row is counted again: stale, never counted, counted before `recountBefore`, or without credits. */
const dueSql = (recountBefore: Date) =>
  sql`(stale or counted_at is null or credits_used is null or counted_at < ${recountBefore.toISOString()}::timestamptz)`;
/** After this long a sweep stops between two days; the next one goes on where it stopped. */
const DEFAULT_BUDGET_MS = 60_000;

export type Bucket = 'queued' | 'sent' | 'delivered' | 'failed' | 'received';
export const BUCKETS: readonly Bucket[] = ['queued', 'sent', 'delivered', 'failed', 'received'];

/**
 * The states whose bucket is `queued`. A message enters one of them only from another (NEXT and
 * REQUEUED_FROM in lib/messages/state-machine.ts), so such a move leaves every day's counts as they were.
 */
const QUEUED_STATUSES: ReadonlySet<string> = new Set(['queued', 'dispatched', 'cancelling']);

/** The state buckets of the overview: what a message counts as, by its state now. */
const BUCKET = sql`case
  when direction = 'inbound' then 'received'
  when status in ('queued', 'dispatched', 'cancelling') then 'queued'
  when status = 'sent' then 'sent'
  when status = 'delivered' then 'delivered'
  else 'failed' end`;

export const dayKey = (date: Date): string => date.toISOString().slice(0, 10);
export const addDays = (date: Date, days: number): Date => new Date(date.getTime() + days * DAY_MS);
const utcDay = (date: Date): Date => new Date(Date.UTC(date.getUTCFullYear(), date.getUTCMonth(), date.getUTCDate()));

/**
 * The statistics' UTC days at `now`: the window's first day, the first day counted live, today, and
 * the end of today (exclusive). The days from `start` to `liveStart` may be read from rollups.
 */
export function statsWindow(now: Date): { start: Date; liveStart: Date; today: Date; end: Date } {
  const today = utcDay(now);
  return {
    start: addDays(today, -(STATS_DAYS - 1)),
    today,
    liveStart: addDays(today, -(LIVE_DAYS - 1)),
    end: addDays(today, 1),
  };
}

/** Times [from, to) of whole UTC days. */
export type DayRange = { from: Date; to: Date };

/**
 * The account's messages in each range, by UTC day and bucket: per range an index-only scan of
 * messages_account_created_idx (whose key holds kind, direction and status), days formatted per group.
 */
export function dailyCountsStatement(accountId: string, ranges: readonly DayRange[]): SQL {
  const scans = ranges.map(
    (range) => sql`select (created_at at time zone 'UTC')::date as day, ${BUCKET} as bucket, count(*)::int as count
      from messages
      where account_id = ${accountId}::uuid and kind = 'message'
        and created_at >= ${range.from.toISOString()}::timestamptz and created_at < ${range.to.toISOString()}::timestamptz
      group by 1, 2`,
  );
  return sql`select to_char(day, 'YYYY-MM-DD') as day, bucket, count from (${sql.join(scans, sql` union all `)}) days`;
}

export type DayCountRow = { day: string; bucket: Bucket; count: number };

/**
 * Credits used (charges less refunds) in each range, by the ledger's time: an index-only scan of
 * credit_ledger_account_created_idx per range, summed.
 */
export function creditsUsedStatement(accountId: string, ranges: readonly DayRange[]): SQL {
  if (ranges.length === 0) return sql`select 0 as used`;
  const scans = ranges.map(
    (range) => sql`select -sum(amount) as used from credit_ledger
      where account_id = ${accountId}::uuid and kind in ('message_charge', 'refund')
        and created_at >= ${range.from.toISOString()}::timestamptz and created_at < ${range.to.toISOString()}::timestamptz`,
  );
  return sql`select coalesce(sum(used), 0)::int as used from (${sql.join(scans, sql` union all `)}) ranges`;
}

/** The account's rollups of the days from `start` to `liveStart` that are not stale (credits_used may be null). */
export function rolledUpStatement(accountId: string, start: Date, liveStart: Date): SQL {
  return sql`select to_char(day, 'YYYY-MM-DD') as day, queued, sent, delivered, failed, received, credits_used
    from message_daily_counts
    where account_id = ${accountId}::uuid and day >= ${dayKey(start)}::date and day < ${dayKey(liveStart)}::date
      and not stale`;
}

const dateArray = (days: readonly string[]) => `{${days.join(',')}}`;

/**
 * Marks the account's `days` (YYYY-MM-DD) stale, creating their rows when missing. The row lock it
 * takes (even on a row already stale) makes a sweep counting one of them wait for this transaction,
 * so that its count sees the change; a sweep already counting makes this wait, and the mark then
 * lands after its count.
 */
async function markDays(executor: Executor, accountId: string, days: readonly string[]): Promise<void> {
  if (days.length === 0) return;
  await executor.execute(
    sql`insert into message_daily_counts as c (account_id, day)
      select ${accountId}::uuid, unnest(${dateArray([...days].sort())}::date[])
      on conflict (account_id, day) do update set stale = true where not c.stale`,
  );
}

/**
 * The days a change at `now` makes stale when it touches a message of theirs: those the statistics
 * may read from rollups, and the oldest live day too, which a sweep that starts just after midnight
 * counts while a transaction begun before it may still be open.
 */
function markableDays(now: Date): { start: Date; end: Date } {
  const { start, liveStart } = statsWindow(now);
  return { start, end: addDays(liveStart, 1) };
}

type ChangedMessage = { accountId: string; kind: string; status: string; createdAt: Date };

/**
 * Marks stale the days of messages that have just entered their state (a move, or a new inbound
 * message dated back by its phone), in the transaction of the change: only messages of kind `message`
 * older than the live days, and not moves within the `queued` bucket. Nothing to do, and no statement,
 * for the recent messages nearly every change is about.
 */
export async function markChangedDays(
  executor: Executor,
  changed: readonly ChangedMessage[],
  now: Date = new Date(),
): Promise<void> {
  const { start, end } = markableDays(now);
  const days = new Map<string, Set<string>>();
  for (const message of changed) {
    if (message.kind !== 'message' || QUEUED_STATUSES.has(message.status)) continue;
    if (message.createdAt < start || message.createdAt >= end) continue;
    const ofAccount = days.get(message.accountId) ?? new Set<string>();
    ofAccount.add(dayKey(message.createdAt));
    days.set(message.accountId, ofAccount);
  }
  for (const accountId of [...days.keys()].sort()) {
    await markDays(executor, accountId, [...(days.get(accountId) ?? [])]);
  }
}

/** Marks stale every day of the account a change may touch (a phone removed with its messages). */
export async function markEveryDayChanged(
  executor: Executor,
  accountId: string,
  now: Date = new Date(),
): Promise<void> {
  const { start, end } = markableDays(now);
  const days: string[] = [];
  for (let day = start; day < end; day = addDays(day, 1)) days.push(dayKey(day));
  await markDays(executor, accountId, days);
}

/**
 * Counts one day of the account into its row, in a transaction of its own: the row is created when
 * missing and locked first, then the day is counted (a statement of its own, so it sees every change
 * whose mark held the lock before), then written, not stale. Answers whether it counted: not when a
 * concurrent sweep did meanwhile.
 */
async function countDay(db: Executor, accountId: string, day: Date, now: Date, recountBefore: Date): Promise<boolean> {
  return withTransaction(db, async (tx) => {
    await tx.execute(
      sql`insert into message_daily_counts (account_id, day) values (${accountId}::uuid, ${dayKey(day)}::date)
        on conflict (account_id, day) do nothing`,
    );
    const [row] = await queryRows<{ due: boolean }>(
      tx,
      sql`select ${dueSql(recountBefore)} as due
        from message_daily_counts where account_id = ${accountId}::uuid and day = ${dayKey(day)}::date for update`,
    );
    if (!row?.due) return false;
    const range = { from: day, to: addDays(day, 1) };
    const rows = await queryRows<DayCountRow>(tx, dailyCountsStatement(accountId, [range]));
    const counts = Object.fromEntries(BUCKETS.map((bucket) => [bucket, 0])) as Record<Bucket, number>;
    for (const row of rows) counts[row.bucket] += Number(row.count);
    const [credits] = await queryRows<{ used: number }>(tx, creditsUsedStatement(accountId, [range]));
    await tx.execute(
      sql`update message_daily_counts
        set queued = ${counts.queued}, sent = ${counts.sent}, delivered = ${counts.delivered},
          failed = ${counts.failed}, received = ${counts.received}, credits_used = ${Number(credits?.used ?? 0)},
          stale = false, counted_at = ${now.toISOString()}::timestamptz
        where account_id = ${accountId}::uuid and day = ${dayKey(day)}::date`,
    );
    return true;
  });
}

/**
 * The days of one account the sweep counts at `now`, oldest first: those from the window's start to
 * the live days without a row (`undefined`, counted only from `first`, the day of the account's oldest
 * message there), with a stale one, or counted too long ago (`true`).
 */
function dueDays(due: ReadonlyMap<string, boolean>, now: Date, first: Date | null): Date[] {
  const { start, liveStart } = statsWindow(now);
  const days: Date[] = [];
  for (let day = start; day < liveStart; day = addDays(day, 1)) {
    const state = due.get(dayKey(day));
    if (state === true || (state === undefined && first !== null && day >= first)) days.push(day);
  }
  return days;
}

/** The UTC day of the account's oldest message from `start` to `end`; null when there is none. */
async function firstMessageDay(db: Executor, accountId: string, start: Date, end: Date): Promise<Date | null> {
  const [row] = await queryRows<{ first: string | null }>(
    db,
    sql`select min(created_at) as first from messages
      where account_id = ${accountId}::uuid and kind = 'message'
        and created_at >= ${start.toISOString()}::timestamptz and created_at < ${end.toISOString()}::timestamptz`,
  );
  return row?.first ? utcDay(new Date(row.first)) : null;
}

export type RollupOptions = {
  now?: Date;
  budgetMs?: number;
  /** Go over every account, whatever passes this process made before (after a bulk load). */
  everyAccount?: boolean;
};

/** The UTC day of this process's last pass over every account that went to its end. */
let everyAccountPassed: string | undefined;

/** The accounts with a stale day: read across accounts, without locks, along message_daily_counts_stale_idx. */
async function accountsWithStaleDays(db: Executor): Promise<string[]> {
  const rows = await queryRows<{ account_id: string }>(
    db,
    sql`select distinct account_id from message_daily_counts where stale order by account_id`,
  );
  return rows.map((row) => row.account_id);
}

/**
 * One pass of the rollup sweep. The first pass of each UTC day (in this process) goes over every
 * account of the directory, read without locks: a day has left the live days, and days counted half
 * a day ago are due again; the other passes go over the accounts with a stale day only. For each
 * account it deletes the rows of days the window has left and counts the days that are due
 * (dueDays); every statement names its account, and an account with nothing to count costs one or
 * two reads. Concurrent sweeps (several workers) may pick the same account: each day's lock lets one
 * count it and the other find it done. Answers the days counted.
 */
export async function rollUpDailyCounts(db: Executor, options: RollupOptions = {}): Promise<number> {
  const now = options.now ?? new Date();
  const deadline = Date.now() + (options.budgetMs ?? DEFAULT_BUDGET_MS);
  const recountBefore = new Date(now.getTime() - RECOUNT_AFTER_MS);
  const { start, liveStart } = statsWindow(now);
  const everyAccount = options.everyAccount === true || everyAccountPassed !== dayKey(now);
  const ids = everyAccount
    ? (await db.select({ id: accounts.id }).from(accounts).orderBy(asc(accounts.id))).map((account) => account.id)
    : await accountsWithStaleDays(db);
  let counted = 0;
  for (const accountId of ids) {
    if (Date.now() >= deadline) return counted;
    const rows = await queryRows<{ day: string; due: boolean }>(
      db,
      sql`select to_char(day, 'YYYY-MM-DD') as day, ${dueSql(recountBefore)} as due
        from message_daily_counts where account_id = ${accountId}::uuid`,
    );
    if (rows.some((row) => row.day < dayKey(start))) {
      await db.execute(
        sql`delete from message_daily_counts where account_id = ${accountId}::uuid and day < ${dayKey(start)}::date`,
      );
    }
    const due = new Map(rows.map((row) => [row.day, row.due]));
    const missing = dueDays(due, now, start).some((day) => !due.has(dayKey(day)));
    const first = missing ? await firstMessageDay(db, accountId, start, liveStart) : null;
    for (const day of dueDays(due, now, first)) {
      if (Date.now() >= deadline) return counted;
      if (await countDay(db, accountId, day, now, recountBefore)) counted++;
    }
  }
  if (everyAccount) everyAccountPassed = dayKey(now);
  return counted;
}
