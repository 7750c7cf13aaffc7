import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { withDeadline } from '@/db/deadline';
import { createGate, DatabaseUnavailableError, guardingEveryQuery } from '@/db/guard';
import { onRealPostgres } from './database';

/**
 * The bound on requests waiting for the database (DATABASE_MAX_WAITING): past it a query or a
 * transaction is refused at once, without waiting, and room comes back as they end.
 */
describe.runIf(onRealPostgres())('the database gate', () => {
  it('refuses at once past maxWaiting, queries and transactions alike, and frees room as they end', async () => {
    const client = postgres(process.env.TEST_DATABASE_URL as string, { max: 4, onnotice: () => {} });
    const gate = createGate({ acquireTimeoutMs: 5_000, answerTimeoutMs: 5_000, maxWaiting: 2 });
    const sql = guardingEveryQuery(client, gate);
    try {
      // Drizzle sends every query through `unsafe`, which the gate wraps. postgres-js runs a query on its first `then`: from then on it holds the gate, as a transaction does at once.
      const running = Promise.all([
        sql.unsafe('select pg_sleep(0.3)').then((rows) => rows),
        sql.begin((tx) => tx.unsafe('select pg_sleep(0.3)')),
      ]);
      expect(gate.open).toBe(2);
      const started = performance.now();
      const refused = await Promise.allSettled([
        sql.unsafe('select 1').then((rows) => rows),
        sql.begin((tx) => tx.unsafe('select 1')),
      ]);
      expect(performance.now() - started).toBeLessThan(250);
      for (const outcome of refused) {
        expect(outcome.status).toBe('rejected');
        const reason = (outcome as PromiseRejectedResult).reason;
        expect(reason).toBeInstanceOf(DatabaseUnavailableError);
        expect((reason as DatabaseUnavailableError).code).toBe('DATABASE_BUSY');
      }
      await running;
      expect(gate.open).toBe(0);
      expect(await sql.unsafe('select 1 as one')).toEqual([{ one: 1 }]);
    } finally {
      await client.end({ timeout: 5 });
    }
  });

  it("shares one request deadline between its statements and transactions, and lowers a transaction's statement_timeout to it", async () => {
    const client = postgres(process.env.TEST_DATABASE_URL as string, { max: 4, onnotice: () => {} });
    // Each wait alone is well within its own bound (5 s); together they pass the request's 1 s.
    const gate = createGate({
      acquireTimeoutMs: 5_000,
      answerTimeoutMs: 5_000,
      maxWaiting: 8,
      statementTimeoutMs: 5_000,
    });
    const sql = guardingEveryQuery(client, gate);
    const reasonOf = async (work: Promise<unknown>) => {
      const outcome = (await Promise.allSettled([work]))[0];
      return outcome?.status === 'rejected' ? outcome.reason : undefined;
    };
    try {
      let started = performance.now();
      const statements = await reasonOf(
        withDeadline(1_000, async () => {
          await sql.unsafe('select pg_sleep(0.6)');
          await sql.unsafe('select pg_sleep(0.6)');
        }),
      );
      expect(statements).toMatchObject({ code: 'DATABASE_DEADLINE' });
      expect(performance.now() - started).toBeLessThan(1_500);

      started = performance.now();
      const transactions = await reasonOf(
        withDeadline(1_000, async () => {
          await sql.begin((tx) => tx.unsafe('select pg_sleep(0.6)'));
          await sql.begin((tx) => tx.unsafe('select pg_sleep(0.6)'));
        }),
      );
      // The second transaction's statement_timeout is what was left (about 0.4 s): PostgreSQL cancels
      // it (57014), or the request's deadline fails it first.
      expect(transactions).toBeDefined();
      expect(['DATABASE_DEADLINE', '57014']).toContain((transactions as { code: string }).code);
      expect(performance.now() - started).toBeLessThan(1_500);

      const [setting] = await withDeadline(2_000, () =>
        sql.begin((tx) => tx.unsafe<{ statement_timeout: string }[]>('show statement_timeout')),
      );
      // Shown in milliseconds ("1998ms") when below a second's multiple.
      const ms = Number.parseInt(String(setting?.statement_timeout), 10);
      expect(ms).toBeGreaterThan(0);
      expect(ms).toBeLessThanOrEqual(2_000);

      // Without a deadline, the same work runs to its end.
      await sql.unsafe('select pg_sleep(0.6)');
      await sql.unsafe('select pg_sleep(0.6)');
      expect(gate.open).toBe(0);
    } finally {
      await client.end({ timeout: 5 });
    }
  });
});
