import { is } from 'drizzle-orm';
import { PgTransaction } from 'drizzle-orm/pg-core';
import type { Database, Executor, Transaction } from '@/db';

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
