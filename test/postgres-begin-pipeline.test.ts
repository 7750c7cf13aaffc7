import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { onRealPostgres } from './database';

/**
 * postgres.js reserves a connection for a transaction when it hands the connection its BEGIN
 * (`onexecute`), but skipped that step when the connection had a full pipeline (`max_pipeline`
 * queries already sent) or its socket pushed back: the BEGIN then ran on a connection other queries
 * still shared, and its answer failed with UNSAFE_TRANSACTION, leaving a transaction open there.
 * patches/postgres+3.4.9.patch reserves the connection whatever its pipeline. Bursts reach a full
 * pipeline at the driver's default of 100 queries a connection; a pipeline of 2 shows the same path
 * with a few.
 */
describe.runIf(onRealPostgres())('a transaction begun on a connection with a full pipeline', () => {
  it('gets the connection to itself: no UNSAFE_TRANSACTION, and no lone query runs inside it', async () => {
    // `max_pipeline` is an option of the driver its types do not list.
    const options = { max: 2, max_pipeline: 2, onnotice: () => {} } as postgres.Options<Record<string, never>>;
    const sql = postgres(process.env.TEST_DATABASE_URL as string, options);
    try {
      // Each transaction names itself with SET LOCAL; a lone query that ran inside one would read its name.
      const outcomes = await Promise.allSettled(
        Array.from({ length: 60 }, (_, i) =>
          i % 3 === 0
            ? sql.begin(async (tx) => {
                await tx`select set_config('application_name', ${`tx-${i}`}, true)`;
                await tx`select pg_sleep(0.002)`;
                return 'transaction';
              })
            : sql`select current_setting('application_name') as name, pg_sleep(0.002)`.then(([row]) =>
                String(row?.name),
              ),
        ),
      );
      const failures = outcomes.flatMap((outcome) => (outcome.status === 'rejected' ? [String(outcome.reason)] : []));
      expect(failures).toEqual([]);
      const insideTransactions = outcomes.filter(
        (outcome) => outcome.status === 'fulfilled' && outcome.value.startsWith('tx-'),
      );
      expect(insideTransactions).toEqual([]);
    } finally {
      await sql.end({ timeout: 5 });
    }
  });
});
