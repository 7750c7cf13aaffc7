import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
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
});
