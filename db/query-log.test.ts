import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';

type Logged = { sql: string; origin: string; driver: string };

function read(dir: string): Logged[] {
  return fs
    .readdirSync(dir)
    .flatMap((file) => fs.readFileSync(path.join(dir, file), 'utf8').split('\n'))
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Logged);
}

/** db/ and lib/transactions.ts loaded anew with QUERY_LOG_DIR set (the log reads it once, at load). */
async function loggingInto(dir: string) {
  vi.stubEnv('QUERY_LOG_DIR', dir);
  vi.resetModules();
  const client = await import('@/db/client');
  const log = await import('@/db/query-log');
  const transactions = await import('@/lib/transactions');
  return { ...client, ...log, ...transactions };
}

const drivers = [
  ['pglite', undefined],
  ['postgres', process.env.TEST_DATABASE_URL],
] as const;

describe('the query log (QUERY_LOG_DIR)', () => {
  afterEach(() => {
    vi.unstubAllEnvs();
    vi.resetModules();
  });

  for (const [driver, url] of drivers) {
    it.skipIf(driver === 'postgres' && !url)(
      `writes each statement sent with an origin once, from queries, transactions and pipelined batches (${driver})`,
      async () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-query-log-test-'));
        const db = await loggingInto(dir);
        const handle = url ? db.openPostgres(url, { max: 2, pipeline: 1 }) : await db.openPglite();
        try {
          const batched = db.batchedOnPipeline<number, number>(
            async (pipelined, items) => {
              await pipelined.execute(sql`select ${items.length}::int as batch`);
              return items;
            },
            { max: 4 },
          );
          await handle.db.execute(sql`select 1 as setup`);
          await db.withQueryOrigin('request:listThings', async () => {
            await handle.db.execute(sql`select   2
              as twice`);
            await handle.db.execute(sql`select 2 as twice`);
            await handle.db.transaction(async (tx) => {
              await tx.execute(sql`select 3 as in_transaction`);
            });
            expect(await batched(handle.db, 7)).toBe(7);
          });
          await db.withQueryOrigin('task:sweep', async () => {
            await handle.db.execute(sql`select 2 as twice`);
          });
        } finally {
          await handle.close();
        }
        const logged = read(dir);
        expect(logged).toEqual(
          expect.arrayContaining([
            { sql: 'select 2 as twice', origin: 'request:listThings', driver },
            { sql: 'select 3 as in_transaction', origin: 'request:listThings', driver },
            { sql: 'select $1::int as batch', origin: 'request:listThings', driver },
            { sql: 'select 2 as twice', origin: 'task:sweep', driver },
          ]),
        );
        // Once per text and origin; nothing sent outside an origin (a test's own setup).
        expect(logged.filter((entry) => entry.sql === 'select 2 as twice')).toHaveLength(2);
        expect(logged.some((entry) => entry.sql.includes('setup'))).toBe(false);
        fs.rmSync(dir, { recursive: true, force: true });
      },
      // A fresh embedded database starts slowly on a busy machine.
      120_000,
    );
  }

  it('without QUERY_LOG_DIR, drizzle gets no logger and an origin only runs its work', async () => {
    vi.stubEnv('QUERY_LOG_DIR', '');
    vi.resetModules();
    const log = await import('@/db/query-log');
    expect(log.queryLogging).toBe(false);
    expect(log.queryLogger('pglite')).toBeUndefined();
    expect(log.withQueryOrigin('request:x', () => 42)).toBe(42);
  });
});
