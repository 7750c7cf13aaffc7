import { sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import { DomainError } from '@/lib/errors';
import { citusMode } from './database';

/**
 * Waits for async work without a fixed sleep: polls `probe` until it returns a truthy value (which
 * is returned), failing after `timeoutMs`.
 */
export async function until<T>(
  probe: () => T | Promise<T>,
  { timeoutMs = 10_000, intervalMs = 5 }: { timeoutMs?: number; intervalMs?: number } = {},
): Promise<NonNullable<T>> {
  const started = performance.now();
  for (;;) {
    const value = await probe();
    if (value) return value as NonNullable<T>;
    if (performance.now() - started > timeoutMs) throw new Error(`condition not met within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** The code of the DomainError a promise rejects with; undefined when it resolves. */
export async function errorCodeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    if (error instanceof DomainError) return error.code;
    throw error;
  }
}

/**
 * Until a statement of `db`'s database waits on a lock (PostgreSQL: the embedded database runs one
 * transaction at a time). On a Citus coordinator the wait is on a worker, where the shard's row is:
 * `citus_lock_waits` shows the waits of every node.
 */
export async function someoneWaitsOnALock(db: Executor): Promise<void> {
  const waits = citusMode()
    ? sql`select count(*)::int as waiting from citus_lock_waits`
    : sql`select count(*)::int as waiting from pg_stat_activity
          where datname = current_database() and wait_event_type = 'Lock'`;
  await until(async () => {
    const [row] = await queryRows<{ waiting: number }>(db, waits);
    return Number(row?.waiting) > 0;
  });
}
