// The retention sweep's duty (RETENTION_SWEEP_DUTY_PERCENT): after each full batch it pauses in
// proportion to the batch's time, so that a backlog's purge leaves the sends sharing the database's
// cores their speed. The pauses are recorded here, not waited for.
import { eq, sql } from 'drizzle-orm';
import { beforeEach, describe, expect, it } from 'vitest';
import { heartbeats } from '@/db/schema';
import { config } from '@/lib/config';
import { sweepRetention, sweepRetentionPass } from '@/lib/retention/sweep';
import { createTestAccount, type TestAccount } from './fixtures';
import { withTestDatabase } from './setup-db';

const { db } = withTestDatabase();

const NOW = new Date('2031-03-01T12:00:00.000Z');
const OLD = new Date('2031-01-01T12:00:00.000Z');
const BATCH = 10;
const ROWS = 45;

let account: TestAccount;

beforeEach(async () => {
  account = await createTestAccount(db());
  await db().execute(sql`insert into heartbeats (account_id, phone_id, status, created_at)
    select ${account.accountId}::uuid, ${account.phoneId}::uuid, 'online', ${OLD.toISOString()}::timestamptz
    from generate_series(1, ${ROWS})`);
});

/** A sweep with the duty given, its pauses recorded; answers the pauses and its wall time. */
async function sweepWith(dutyPercent: number) {
  const pauses: number[] = [];
  const started = performance.now();
  const report = await sweepRetention(db(), {
    now: NOW,
    settings: { ...config.retention, contentDays: null, heartbeatsDays: 30 },
    batchSize: BATCH,
    dutyPercent,
    pause: async (ms) => {
      pauses.push(ms);
    },
  });
  const left = await db().$count(heartbeats, eq(heartbeats.accountId, account.accountId));
  return { report, pauses, wallMs: performance.now() - started, left };
}

describe('the retention sweep’s duty', () => {
  it('pauses after each full batch, three times its time at 25 %, and still removes every row', async () => {
    const { report, pauses, wallMs, left } = await sweepWith(25);
    expect(report.heartbeats).toBe(ROWS);
    expect(left).toBe(0);
    // Four full batches of ten; the fifth, of five, ends the drain without a pause.
    expect(pauses).toHaveLength(Math.floor(ROWS / BATCH));
    for (const ms of pauses) expect(ms).toBeGreaterThan(0);
    // Each pause is three times its batch's statement, which took part of the sweep's wall time.
    expect(pauses.reduce((sum, ms) => sum + ms, 0)).toBeLessThanOrEqual(3 * wallMs);
  });

  it('does not pause at 100 %', async () => {
    const { report, pauses } = await sweepWith(100);
    expect(report.heartbeats).toBe(ROWS);
    expect(pauses).toEqual([]);
  });
});

describe('a pass cut short by its budget', () => {
  it('says it left work; one that finished says it did not', async () => {
    const settings = { ...config.retention, contentDays: null, heartbeatsDays: 30 };
    const cut = await sweepRetentionPass(db(), { now: NOW, settings, batchSize: BATCH, budgetMs: 0 });
    expect(cut.workLeft).toBe(true);
    expect(cut.report.heartbeats).toBe(0);
    const done = await sweepRetentionPass(db(), { now: NOW, settings, batchSize: BATCH, dutyPercent: 100 });
    expect(done.workLeft).toBe(false);
    expect(done.report.heartbeats).toBe(ROWS);
  });
});
