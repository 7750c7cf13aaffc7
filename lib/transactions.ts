import { is } from 'drizzle-orm';
import { PgTransaction } from 'drizzle-orm/pg-core';
import { type Database, type Executor, type Pipeline, pipelineOf, type Transaction } from '@/db';
import { SQLSTATE, sqlState } from '@/db/sqlstate';
import { batcher } from '@/lib/batch';

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

export { SQLSTATE, sqlState };

/**
 * Whether `error` is the driver (or our mapping of its rows) failing to read a statement's answer:
 * a TypeError, RangeError or SyntaxError along the `cause` chain ("Cannot read properties of
 * undefined", "offset is out of range", a JSON column it cannot parse). The database answered, so
 * the statement ran, and outside a transaction it may have committed: its outcome is unknown.
 */
export function isUnreadAnswer(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    if (current instanceof TypeError || current instanceof RangeError || current instanceof SyntaxError) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

export function isUniqueViolation(error: unknown, constraint?: string): boolean {
  if (sqlState(error) !== SQLSTATE.uniqueViolation) return false;
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

/**
 * `run` for many items at once, as one statement on the database's pipelined connections, the
 * items being whatever calls reach this instance meanwhile (natural batching, lib/batch.ts). The
 * answer for an item is what `run` answered for it, or undefined: an item `run` did not settle,
 * every item of a statement the database refused as a whole (a lock wait past the pipeline's
 * lock_timeout, a unique violation between two items, a value it rejects), and every item where
 * there are no pipelined connections (a transaction; the embedded database's one session counts as
 * one pipelined connection, whose batches gather what the event loop takes in). The caller handles
 * those alone, as it would without batching; nothing was written for them, since a statement is
 * all or nothing. A lost connection is rethrown: the commit's answer may be what was lost.
 */
export function batchedOnPipeline<I, O>(
  run: (db: Database, items: I[]) => Promise<Array<O | undefined>>,
  options: { max: number; windowMs?: number },
): (executor: Executor, item: I) => Promise<O | undefined> {
  const submitters = new WeakMap<Pipeline, (item: I) => Promise<O | undefined>>();
  return async (executor, item) => {
    const pipeline = pipelineOf(executor);
    if (!pipeline) return undefined;
    let submit = submitters.get(pipeline);
    if (!submit) {
      submit = batcher({
        inFlight: pipeline.size,
        max: options.max,
        // A second lane only once a quarter of a full batch waits: until then one lane keeps up,
        // and one batch of sixteen costs the database far less than a few small ones.
        spillAt: Math.max(1, Math.floor(options.max / 4)),
        run: (items) => run(pipeline.db, items),
        gather: pipeline.gather,
        // For work nobody waits on: what arrives over the window goes together (lib/batch.ts).
        windowMs: options.windowMs,
        // Two batches in turn keep this thread busy while the database works; a database on this
        // thread (gather) never leaves it waiting, and there fewer, larger batches cost less. A
        // window's batch is whole: its items waited to go together.
        halve: !pipeline.gather && options.windowMs === undefined,
      });
      submitters.set(pipeline, submit);
    }
    try {
      return await submit(item);
    } catch (error) {
      const state = sqlState(error);
      if (state && !/^(08|57)/.test(state)) return undefined;
      throw error;
    }
  };
}
