import net from 'node:net';
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

/**
 * A transaction's BEGIN and its first statement go to the database in one round trip
 * (patches/postgres+3.4.9.patch: on a connection taken at once, the statement follows BEGIN without
 * waiting for its answer). A proxy between the driver and the database records which way each chunk
 * went: the statement must leave before BEGIN's answer comes back.
 */
describe.runIf(onRealPostgres())('a transaction on a free connection', () => {
  it("sends its first statement before BEGIN's answer, and still runs it inside the transaction", async () => {
    const target = new URL(process.env.TEST_DATABASE_URL as string);
    const events: string[] = [];
    const proxy = net.createServer((client) => {
      const server = net.connect(Number(target.port || 5432), target.hostname);
      client.on('data', (chunk) => {
        events.push(`out ${chunk.toString('latin1')}`);
        server.write(chunk);
      });
      server.on('data', (chunk) => {
        events.push('in');
        client.write(chunk);
      });
      client.on('error', () => server.destroy());
      server.on('error', () => client.destroy());
      client.on('close', () => server.destroy());
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const url = Object.assign(new URL(target), { port: String((proxy.address() as net.AddressInfo).port) });
    const sql = postgres(url.toString(), { max: 1, onnotice: () => {} });
    try {
      await sql`select 1`;
      events.length = 0;
      const inside = await sql.begin(async (tx) => {
        const [row] =
          await tx`select txid_current_if_assigned() is null as fresh, now() = statement_timestamp() as alone`;
        return row;
      });
      // now() is the transaction's start, statement_timestamp() the statement's: they differ inside one.
      expect(inside).toEqual({ fresh: true, alone: false });
      const begin = events.findIndex((event) => event.startsWith('out') && event.includes('begin'));
      const statement = events.findIndex((event) => event.startsWith('out') && event.includes('txid_current'));
      const answer = events.findIndex((event, i) => i > begin && event === 'in');
      expect(begin).toBeGreaterThanOrEqual(0);
      expect(statement).toBeGreaterThanOrEqual(begin);
      expect(statement).toBeLessThan(answer);
    } finally {
      await sql.end({ timeout: 5 });
      proxy.close();
    }
  });
});
