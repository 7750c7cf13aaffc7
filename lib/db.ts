import { is } from 'drizzle-orm';
import { PgTransaction } from 'drizzle-orm/pg-core';
import { type Database, type Executor, pipelineOf, type Transaction } from '@/db';

/**
 * Whether `executor` is a transaction. drizzle's `is` compares entity kinds, not classes, so it
 * holds for every driver's transaction and across two copies of drizzle (`instanceof` does not).
 */
export function isTransaction(executor: Executor): executor is Transaction {
  return is(executor, PgTransaction);
}

/** Runs `fn` in a transaction, reusing the caller's when there is one, so operations compose. */
export function withTransaction<T>(executor: Executor, fn: (tx: Transaction) => Promise<T>): Promise<T> {
  if (isTransaction(executor)) return fn(executor);
  return (executor as Database).transaction(fn);
}

/** The Postgres error code of a failed query (`23505` unique violation, …), if any. */
export function sqlState(error: unknown): string | undefined {
  let current: unknown = error;
  // drizzle wraps driver errors in `cause`.
  for (let depth = 0; current && depth < 4; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (sqlState(error) !== '23505') return false;
  if (!constraint) return true;
  let current: unknown = error;
  for (let depth = 0; current && depth < 4; depth++) {
    const c = current as { constraint?: string; constraint_name?: string; detail?: string; message?: string };
    if (c.constraint === constraint || c.constraint_name === constraint) return true;
    if (c.message?.includes(constraint)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/** lock_not_available: a statement waited longer than its connection's lock_timeout. */
const LOCK_TIMEOUT = '55P03';

/**
 * Runs one autocommitted statement (all or nothing by itself) on the database's pipelined
 * connections when it has them (db/client.ts `openPostgres`), else on `executor` itself. A statement
 * that waited there too long for a lock (PIPELINE_LOCK_TIMEOUT_MS) failed whole, so it runs again on
 * the pool, where it may wait as long as it must without holding up anyone else's.
 */
export async function onPipeline<T>(executor: Executor, run: (executor: Executor) => Promise<T>): Promise<T> {
  const pipeline = pipelineOf(executor);
  if (!pipeline) return run(executor);
  try {
    return await run(pipeline);
  } catch (error) {
    if (sqlState(error) === LOCK_TIMEOUT) return run(executor);
    throw error;
  }
}
