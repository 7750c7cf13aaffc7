// The overview's statistics from daily rollups (lib/messages/daily-counts.ts): whatever the rollups hold,
// stale or missing, the statistics equal the live count of the same messages (what messageStats
// counted before rollups: every day of the window from messages_account_created_idx).
import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { POST as reportStatus } from '@/app/api/v1/device/messages/[id]/status/route';
import { POST as received } from '@/app/api/v1/device/messages/received/route';
import { type Executor, queryRows, withQueryOrigin } from '@/db';
import { creditLedger, type MessageStatus, messageDailyCounts, messages } from '@/db/schema';
import {
  addDays,
  type DayCountRow,
  dailyCountsStatement,
  dayKey,
  markChangedDays,
  type RollupOptions,
  rollUpDailyCounts,
  statsWindow,
} from '@/lib/messages/daily-counts';
import { transitionMessage } from '@/lib/messages/state-machine';
import { deletePhone } from '@/lib/phones/delete';
import { messageStats } from '@/lib/stats/messages';
import type { MessageStats } from '@/lib/stats/schemas';
import { testDatabaseUrl } from './database';
import { addTestPhone, createTestAccount, type TestAccount, testNumber } from './fixtures';
import { call } from './http';
import { someoneWaitsOnALock } from './poll';
import { withTestDatabase } from './setup-db';

const { db } = withTestDatabase();
const DAY = 86_400_000;

type Day = MessageStats['daily'][number];
type Seed = {
  at: Date;
  direction?: 'outbound' | 'inbound';
  status: MessageStatus;
  kind?: 'message' | 'sim_check' | 'data';
  phoneId?: string;
};

/** Writes messages as they would stand, with their times; answers their ids in order. */
async function seed(account: TestAccount, rows: Seed[]): Promise<string[]> {
  const written = await db()
    .insert(messages)
    .values(
      rows.map((row) => {
        const inbound = row.direction === 'inbound';
        return {
          accountId: account.accountId,
          phoneId: row.phoneId ?? account.phoneId,
          groupId: inbound ? null : account.defaultGroupId,
          direction: row.direction ?? 'outbound',
          from: inbound ? testNumber() : account.phone,
          to: inbound ? account.phone : testNumber(),
          content: 'x',
          status: row.status,
          segments: 1,
          encoding: 'GSM-7' as const,
          kind: row.kind ?? 'message',
          createdAt: row.at,
          updatedAt: row.at,
        };
      }),
    )
    .returning({ id: messages.id });
  return written.map((row) => row.id);
}

/** The statistics' days as the live count alone gives them: the figures the rollups must reproduce. */
async function liveDaily(accountId: string, now: Date): Promise<Day[]> {
  const { start, end } = statsWindow(now);
  const rows = await queryRows<DayCountRow>(db(), dailyCountsStatement(accountId, [{ from: start, to: end }]));
  const days: Day[] = [];
  for (let day = start; day < end; day = addDays(day, 1)) {
    const date = dayKey(day);
    const counts = { queued: 0, sent: 0, delivered: 0, failed: 0, received: 0 };
    for (const row of rows.filter((r) => r.day === date)) counts[row.bucket] += Number(row.count);
    days.push({ date, ...counts });
  }
  return days;
}

/** A pass of the sweep as the background task runs it (its statements in the query log's check). */
function sweep(options: RollupOptions, executor: Executor = db()): Promise<number> {
  return withQueryOrigin('task:statistics rollup', () => rollUpDailyCounts(executor, options));
}

async function rollupRows(accountId: string) {
  return db()
    .select()
    .from(messageDailyCounts)
    .where(eq(messageDailyCounts.accountId, accountId))
    .orderBy(messageDailyCounts.day);
}

async function rowOf(accountId: string, day: Date) {
  const [row] = await db()
    .select()
    .from(messageDailyCounts)
    .where(and(eq(messageDailyCounts.accountId, accountId), eq(messageDailyCounts.day, dayKey(day))));
  return row;
}

async function expectStatsLive(accountId: string, now: Date = new Date()): Promise<MessageStats> {
  const stats = await messageStats(db(), accountId, now);
  expect(stats.daily).toEqual(await liveDaily(accountId, now));
  return stats;
}

const STATES: MessageStatus[] = ['queued', 'dispatched', 'cancelling', 'sent', 'delivered', 'failed', 'expired'];

/** Every day from 34 days back to today: each outbound state, an inbound one, and kinds not counted. */
function mixOfDays(now: Date): Seed[] {
  const today = statsWindow(now).today;
  const rows: Seed[] = [];
  for (let back = 0; back <= 34; back++) {
    const day = addDays(today, -back);
    // The first and the last millisecond of the UTC day, and some in between.
    const times = [0, DAY - 1, 3_600_000 * (1 + (back % 20))].map((ms) => new Date(day.getTime() + ms));
    times.forEach((at, i) => {
      if (at > now) return;
      rows.push({ at, status: STATES[(back + i) % STATES.length] as MessageStatus });
      if ((back + i) % 3 === 0) rows.push({ at, direction: 'inbound', status: 'received' });
      if ((back + i) % 5 === 0) rows.push({ at, status: 'delivered', kind: 'sim_check' });
      if ((back + i) % 7 === 0) rows.push({ at, direction: 'inbound', status: 'received', kind: 'data' });
    });
    if (back % 4 === 0) rows.push({ at: new Date(day.getTime() + 43_200_000), status: 'cancelled' });
  }
  return rows.filter((row) => row.at <= now);
}

describe('statistics from daily rollups', () => {
  it('equal the live count over a mix of days and states, with no rollup, after the sweep, and read them', async () => {
    const now = new Date();
    const account = await createTestAccount(db());
    await seed(account, mixOfDays(now));
    await expectStatsLive(account.accountId, now);

    expect(await sweep({ now, everyAccount: true })).toBeGreaterThanOrEqual(27);
    const rows = await rollupRows(account.accountId);
    const { start, liveStart } = statsWindow(now);
    expect(rows.map((row) => row.day)).toEqual(
      Array.from({ length: 27 }, (_, i) => dayKey(addDays(start, i))).filter((day) => day < dayKey(liveStart)),
    );
    expect(rows.every((row) => !row.stale)).toBe(true);
    const stats = await expectStatsLive(account.accountId, now);
    expect(stats.last_30_days.received).toBeGreaterThan(0);

    // The old days are read from the rollups, not counted again: a row changed by hand shows.
    const day = addDays(start, 3);
    await db()
      .update(messageDailyCounts)
      .set({ delivered: sql`${messageDailyCounts.delivered} + 100` })
      .where(and(eq(messageDailyCounts.accountId, account.accountId), eq(messageDailyCounts.day, dayKey(day))));
    const read = await messageStats(db(), account.accountId, now);
    const live = await liveDaily(account.accountId, now);
    expect(read.daily[3]!.delivered).toBe(live[3]!.delivered + 100);
    expect(read.daily.slice(4)).toEqual(live.slice(4));
  });

  it('show a state change of a rolled-up day at once, and the sweep counts the day again', async () => {
    const now = new Date();
    const account = await createTestAccount(db());
    const tenDaysAgo = new Date(now.getTime() - 10 * DAY);
    const yesterday = new Date(now.getTime() - DAY);
    const [old, recent] = await seed(account, [
      { at: tenDaysAgo, status: 'sent' },
      { at: yesterday, status: 'sent' },
      { at: tenDaysAgo, status: 'delivered' },
    ]);
    await sweep({ now, everyAccount: true });
    expect(await rowOf(account.accountId, tenDaysAgo)).toMatchObject({ sent: 1, delivered: 1, stale: false });

    // The phone's delivery report, through the device API.
    const report = await call(reportStatus, {
      params: { id: old! },
      body: { status: 'delivered' },
      apiKey: account.deviceKey,
    });
    expect(report.status).toBe(200);
    expect(await rowOf(account.accountId, tenDaysAgo)).toMatchObject({ sent: 1, delivered: 1, stale: true });
    const stats = await expectStatsLive(account.accountId, now);
    expect(stats.last_30_days).toMatchObject({ sent: 3, delivered: 2 });

    expect(await sweep({ now })).toBe(1);
    expect(await rowOf(account.accountId, tenDaysAgo)).toMatchObject({ sent: 0, delivered: 2, stale: false });
    await expectStatsLive(account.accountId, now);

    // A change within the live days marks nothing: those are counted live anyway.
    await call(reportStatus, { params: { id: recent! }, body: { status: 'failed' }, apiKey: account.deviceKey });
    expect(await rowOf(account.accountId, yesterday)).toBeUndefined();
    await expectStatsLive(account.accountId, now);
  });

  it('count an inbound message its phone dated into a rolled-up day, and a removed phone’s messages no more', async () => {
    const now = new Date();
    const account = await createTestAccount(db());
    const second = await addTestPhone(db(), account);
    const fiveDaysAgo = new Date(now.getTime() - 5 * DAY);
    const twentyDaysAgo = new Date(now.getTime() - 20 * DAY);
    await seed(account, [
      { at: fiveDaysAgo, status: 'delivered' },
      { at: twentyDaysAgo, status: 'delivered', phoneId: second.phoneId },
      { at: fiveDaysAgo, status: 'failed', phoneId: second.phoneId },
    ]);
    await sweep({ now, everyAccount: true });

    const inbound = await call(received, {
      body: { from: testNumber(), content: 'late', received_at: new Date(fiveDaysAgo.getTime() + 1000).toISOString() },
      apiKey: account.deviceKey,
    });
    expect(inbound.status).toBe(201);
    expect((await rowOf(account.accountId, fiveDaysAgo))?.stale).toBe(true);
    expect((await expectStatsLive(account.accountId, now)).last_30_days.received).toBe(1);

    await deletePhone(db(), account.accountId, second.phoneId);
    const rows = await rollupRows(account.accountId);
    expect(rows.length).toBeGreaterThan(0);
    expect(rows.every((row) => row.stale)).toBe(true);
    let stats = await expectStatsLive(account.accountId, now);
    expect(stats.last_30_days).toMatchObject({ delivered: 1, failed: 0, received: 1 });

    await sweep({ now });
    expect(await rowOf(account.accountId, twentyDaysAgo)).toMatchObject({ delivered: 0, stale: false });
    stats = await expectStatsLive(account.accountId, now);
    expect(stats.last_30_days).toMatchObject({ delivered: 1, failed: 0, received: 1 });
  });

  it('split days at UTC midnight, whatever the session time zone, with now on either side of it', async () => {
    const account = await createTestAccount(db());
    const midnight = new Date('2026-03-10T00:00:00.000Z');
    const rows: Seed[] = [];
    for (let back = 1; back <= 31; back++) {
      const boundary = addDays(midnight, -back);
      rows.push({ at: new Date(boundary.getTime() - 1), status: 'delivered' });
      rows.push({ at: boundary, status: 'failed' });
      rows.push({ at: boundary, direction: 'inbound', status: 'received' });
    }
    rows.push({ at: new Date(midnight.getTime() - 1), status: 'sent' });
    rows.push({ at: midnight, status: 'queued' });
    await seed(account, rows);

    for (const now of [new Date(midnight.getTime() - 1), midnight, new Date(midnight.getTime() + 1)]) {
      for (const zone of ['Pacific/Kiritimati', 'Pacific/Pago_Pago']) {
        const { daily, swept } = await db().transaction(async (tx) => {
          await tx.execute(sql.raw(`set local timezone = '${zone}'`));
          const swept = await sweep({ now }, tx);
          return { daily: (await messageStats(tx, account.accountId, now)).daily, swept };
        });
        expect(swept).toBeGreaterThanOrEqual(0);
        expect(daily).toEqual(await liveDaily(account.accountId, now));
        expect(daily.at(-1)!.date).toBe(dayKey(now));
      }
    }
    const day = addDays(midnight, -5);
    expect(await rowOf(account.accountId, day)).toMatchObject({ delivered: 1, failed: 1, received: 1 });
    const lastBefore = await messageStats(db(), account.accountId, new Date(midnight.getTime() - 1));
    expect(lastBefore.today).toMatchObject({ sent: 1, failed: 1, received: 1 });
    const first = await messageStats(db(), account.accountId, midnight);
    expect(first.daily.at(-1)).toMatchObject({ queued: 1, sent: 0, delivered: 0, failed: 0 });
  });

  it('mark only the days whose counts a change moves, the oldest live day included', async () => {
    const now = new Date();
    const { accountId } = await createTestAccount(db());
    const { start, liveStart } = statsWindow(now);
    const at = (day: Date) => new Date(day.getTime() + 3_600_000);
    await markChangedDays(
      db(),
      [
        // Within the queued bucket (a claim of a message scheduled long ago), or not a text message.
        { accountId, kind: 'message', status: 'dispatched', createdAt: at(addDays(liveStart, -3)) },
        { accountId, kind: 'sim_check', status: 'delivered', createdAt: at(addDays(liveStart, -4)) },
        // Before the window, and in the live days but their oldest.
        { accountId, kind: 'message', status: 'delivered', createdAt: at(addDays(start, -1)) },
        { accountId, kind: 'message', status: 'delivered', createdAt: at(addDays(liveStart, 1)) },
        // The window's first day, and the oldest live day (a sweep just past midnight may count it).
        { accountId, kind: 'message', status: 'failed', createdAt: at(start) },
        { accountId, kind: 'message', status: 'received', createdAt: at(liveStart) },
      ],
      now,
    );
    const rows = await rollupRows(accountId);
    expect(rows.map((row) => [row.day, row.stale])).toEqual([
      [dayKey(start), true],
      [dayKey(liveStart), true],
    ]);
    await expectStatsLive(accountId, now);
  });

  it('never show another account’s counts, nor mark its days', async () => {
    const now = new Date();
    const mine = await createTestAccount(db());
    const theirs = await createTestAccount(db());
    const eightDaysAgo = new Date(now.getTime() - 8 * DAY);
    await seed(mine, [{ at: eightDaysAgo, status: 'delivered' }]);
    const [theirOld] = await seed(theirs, [
      { at: eightDaysAgo, status: 'sent' },
      { at: eightDaysAgo, status: 'failed' },
      { at: eightDaysAgo, direction: 'inbound', status: 'received' },
    ]);
    await sweep({ now, everyAccount: true });
    expect(await rowOf(mine.accountId, eightDaysAgo)).toMatchObject({ delivered: 1, sent: 0, failed: 0, received: 0 });
    expect(await rowOf(theirs.accountId, eightDaysAgo)).toMatchObject({
      delivered: 0,
      sent: 1,
      failed: 1,
      received: 1,
    });
    const stats = await expectStatsLive(mine.accountId, now);
    expect(stats.last_30_days).toMatchObject({ sent: 1, delivered: 1, failed: 0, received: 0 });

    const [row] = await db().select().from(messages).where(eq(messages.id, theirOld!));
    await transitionMessage(db(), row!, 'delivered');
    expect((await rowOf(theirs.accountId, eightDaysAgo))?.stale).toBe(true);
    expect((await rowOf(mine.accountId, eightDaysAgo))?.stale).toBe(false);
    await expectStatsLive(mine.accountId, now);
    await expectStatsLive(theirs.accountId, now);
  });

  it('give the credits used as the ledger does, from rollups once swept, and from the ledger where a row has none', async () => {
    const now = new Date();
    const account = await createTestAccount(db());
    await seed(account, mixOfDays(now));
    const { today } = statsWindow(now);
    // Charges and refunds on days across the window (and before it), and a grant that is not a use.
    const movements: Array<{ back: number; kind: 'message_charge' | 'refund' | 'operator_grant'; amount: number }> = [];
    for (let back = 0; back <= 34; back++) {
      movements.push({ back, kind: 'message_charge', amount: -(1 + (back % 4)) });
      if (back % 3 === 0) movements.push({ back, kind: 'refund', amount: 1 });
      if (back % 10 === 0) movements.push({ back, kind: 'operator_grant', amount: 50 });
    }
    await db()
      .insert(creditLedger)
      .values(
        movements.map((m) => ({
          accountId: account.accountId,
          groupId: account.defaultGroupId,
          kind: m.kind,
          amount: m.amount,
          balanceAfter: 1000,
          createdAt: new Date(Math.min(now.getTime(), addDays(today, -m.back).getTime() + 3_600_000)),
        })),
      );
    const used = (inWindow: (back: number) => boolean) =>
      0 - movements.filter((m) => m.kind !== 'operator_grant' && inWindow(m.back)).reduce((n, m) => n + m.amount, 0);
    const expected = { today: used((back) => back === 0), period: used((back) => back < 30) };
    const credits = async () => {
      const stats = await messageStats(db(), account.accountId, now);
      return { today: stats.today.credits_used, period: stats.last_30_days.credits_used };
    };
    expect(await credits()).toEqual(expected);

    await sweep({ now, everyAccount: true });
    const rows = await rollupRows(account.accountId);
    expect(rows.length).toBeGreaterThan(20);
    expect(rows.every((row) => row.creditsUsed !== null)).toBe(true);
    expect(await credits()).toEqual(expected);

    // Read from the rollups, not the ledger: a row changed by hand shows; one without credits does not.
    const { start } = statsWindow(now);
    const setCredits = (day: Date, creditsUsed: number | null) =>
      db()
        .update(messageDailyCounts)
        .set({ creditsUsed })
        .where(and(eq(messageDailyCounts.accountId, account.accountId), eq(messageDailyCounts.day, dayKey(day))));
    await setCredits(addDays(start, 2), 1_000);
    const dayUsed = used((back) => dayKey(addDays(today, -back)) === dayKey(addDays(start, 2)));
    expect(await credits()).toEqual({ ...expected, period: expected.period - dayUsed + 1_000 });
    await setCredits(addDays(start, 2), null);
    expect(await credits()).toEqual(expected);
    // A row without credits (one counted before they were) is due: the next pass over every account counts it.
    expect(await sweep({ now, everyAccount: true })).toBe(1);
    expect((await rowOf(account.accountId, addDays(start, 2)))?.creditsUsed).toBe(dayUsed);
  });

  it('sweep idempotently: a second pass counts nothing, a day later only what is due, and old rows go', async () => {
    const now = new Date();
    const account = await createTestAccount(db());
    await seed(account, mixOfDays(now));
    expect(await sweep({ now, budgetMs: 0 })).toBe(0);
    await sweep({ now, everyAccount: true });
    const first = await rollupRows(account.accountId);
    expect(await sweep({ now, everyAccount: true })).toBe(0);
    expect(await rollupRows(account.accountId)).toEqual(first);

    // A day later: the day that left the live days is counted, and the others again (a day old).
    const later = new Date(now.getTime() + DAY);
    await sweep({ now: later });
    const next = await rollupRows(account.accountId);
    const { start, liveStart } = statsWindow(later);
    expect(next.map((row) => row.day)).toEqual(
      Array.from({ length: 27 }, (_, i) => dayKey(addDays(start, i))).filter((day) => day < dayKey(liveStart)),
    );
    const counts = (rows: typeof first) =>
      rows.map(({ day, queued, sent, delivered, failed, received }) => ({
        day,
        queued,
        sent,
        delivered,
        failed,
        received,
      }));
    expect(counts(next).slice(0, -1)).toEqual(counts(first).slice(1));
    await expectStatsLive(account.accountId, later);
    expect(await sweep({ now: later, everyAccount: true })).toBe(0);

    // Days the window has left are deleted.
    await sweep({ now: new Date(now.getTime() + 40 * DAY) });
    expect(await rollupRows(account.accountId)).toEqual([]);
  });

  it.runIf(testDatabaseUrl())(
    'a sweep counting a day waits for the change that marked it, and counts it (PostgreSQL)',
    async () => {
      const now = new Date();
      const account = await createTestAccount(db());
      const twelveDaysAgo = new Date(now.getTime() - 12 * DAY);
      const [id] = await seed(account, [{ at: twelveDaysAgo, status: 'sent' }]);
      await sweep({ now, everyAccount: true });
      // Due again (counted two days ago), so the sweep below counts it while the change is open.
      await db()
        .update(messageDailyCounts)
        .set({ countedAt: new Date(now.getTime() - 2 * DAY) })
        .where(eq(messageDailyCounts.accountId, account.accountId));

      let release: () => void = () => {};
      const held = new Promise<void>((resolve) => {
        release = resolve;
      });
      let marked: () => void = () => {};
      const isMarked = new Promise<void>((resolve) => {
        marked = resolve;
      });
      const change = db().transaction(async (tx) => {
        const [row] = await tx.select().from(messages).where(eq(messages.id, id!));
        await transitionMessage(tx, row!, 'delivered');
        marked();
        await held;
      });
      await isMarked;
      let swept = false;
      const counting = sweep({ now, everyAccount: true }).then((n) => {
        swept = true;
        return n;
      });
      // The sweep waits for the change's row lock: it has not counted the day.
      await someoneWaitsOnALock(db());
      expect(swept).toBe(false);
      release();
      await change;
      expect(await counting).toBeGreaterThanOrEqual(1);
      expect(await rowOf(account.accountId, twelveDaysAgo)).toMatchObject({ sent: 0, delivered: 1, stale: false });
      await expectStatsLive(account.accountId, now);
    },
  );
});
