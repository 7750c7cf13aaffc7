import { PgDialect } from 'drizzle-orm/pg-core';
import postgres from 'postgres';
import { plainSendStatement } from '../lib/messages/send';
import type { BenchPhone } from './activate';
import { CONNECTIONS, type Driver, percentile, recipient } from './load';

/**
 * The database's ceiling for a send (`db_ceiling`): the statement that accepts a send alone
 * (lib/messages/send.ts `plainSendStatement`, the one-send statement of `sendMessage`) run from
 * postgres.js alone, prepared, on CONNECTIONS connections each with one statement in flight, as
 * many times as they can for the slice: no HTTP, no wrapper, no key lookup, no JSON. Each is a
 * real send of `phone`'s account (a fresh id and request_id, a different recipient), charged and
 * queued like the server's. Returns the driver and its `end`.
 */
export function dbCeiling(
  databaseUrl: string,
  accountId: string,
  phone: BenchPhone,
): { drive: Driver; end: () => Promise<void> } {
  const sql = postgres(databaseUrl, { max: CONNECTIONS, onnotice: () => {} });
  // As drizzle's postgres-js driver sets the app's client (drizzle-orm/postgres-js/driver.js): json,
  // jsonb and dates go as drizzle wrote them, not serialized again.
  const serializers = sql.options.serializers as Record<string, (value: unknown) => unknown>;
  for (const type of ['114', '3802', '1184', '1082', '1083', '1114', '1182', '1185', '1115', '1231']) {
    serializers[type] = (value) => value;
  }
  const dialect = new PgDialect();
  let n = 0;
  const once = async () => {
    const statement = plainSendStatement(accountId, {
      from: phone.phone,
      to: recipient(n + 5_000_000),
      content: 'Benchmark message',
      requestId: `ceiling-${n++}-${process.pid}`,
    });
    const { sql: text, params } = dialect.sqlToQuery(statement);
    const [row] = await sql.unsafe(text, params as never[], { prepare: true });
    if (!row?.id) throw new Error(`the send statement accepted nothing: ${JSON.stringify(row)}`);
  };
  const drive: Driver = async (seconds) => {
    const times: number[] = [];
    let errors = 0;
    const until = performance.now() + seconds * 1000;
    const worker = async () => {
      while (performance.now() < until) {
        const started = performance.now();
        try {
          await once();
          times.push(performance.now() - started);
        } catch (error) {
          if (errors++ === 0) console.error('db_ceiling:', error);
        }
      }
    };
    const started = performance.now();
    await Promise.all(Array.from({ length: CONNECTIONS }, worker));
    const elapsed = (performance.now() - started) / 1000;
    return {
      load: { rps: times.length / elapsed, p50_ms: percentile(times, 50), p99_ms: percentile(times, 99), errors },
      requests: times.length,
    };
  };
  return { drive, end: () => sql.end() };
}
