import { scoped, withScoped } from './scope';

/**
 * A request's one deadline for the database (REQUEST_DEADLINE_MS): every connection it waits for
 * and every statement it runs share it, so that a request with several statements still answers
 * within it (lib/http/route.ts starts it; db/guard.ts and lib/batch.ts read it). `at` is on
 * `performance.now()`'s clock; `ended` once the request has its answer: what runs after (a stream's
 * statements, work left to finish) keeps the database's own bounds.
 */
export type RequestDeadline = { at: number; ms: number; ended: boolean };

// Shared by every bundle Next evaluates db/ in: the route that starts a deadline may not be in the bundle
// whose guard reads it.
const DEADLINE = Symbol.for('simgate.db.deadline');

/** Runs `work` under a deadline `ms` from now, which ends when `work` does. */
export async function withDeadline<T>(ms: number, work: () => Promise<T>): Promise<T> {
  const deadline: RequestDeadline = { at: performance.now() + ms, ms, ended: false };
  try {
    return await withScoped(DEADLINE, deadline, work);
  } finally {
    deadline.ended = true;
  }
}

/** The deadline of the work running now, if it has one that has not ended. */
export function currentDeadline(): RequestDeadline | undefined {
  const deadline = scoped<RequestDeadline>(DEADLINE);
  return deadline && !deadline.ended ? deadline : undefined;
}

/** Milliseconds left before `deadline` (0 once passed). */
export function leftOf(deadline: RequestDeadline): number {
  return Math.max(0, deadline.at - performance.now());
}

/**
 * Runs `work` with no deadline: work that several requests share (a batch of their statements)
 * keeps the database's own bounds, and each request bounds its own wait for it (db/guard.ts `beforeDeadline`).
 */
export function outsideDeadline<T>(work: () => T): T {
  return withScoped(DEADLINE, undefined, work);
}

const WAITING = Symbol.for('simgate.db.waiting');

/**
 * Runs `work` with `onWait` called each time it begins a wait that is not the database's
 * (`pausingDeadline`): a long-poll's connection is then set up, and costs nothing until it wakes.
 */
export function tellingWaits<T>(onWait: () => void, work: () => T): T {
  return withScoped(WAITING, onWait, work);
}

/**
 * Awaits `wait`, a wait that is not the database's (a long-poll's wait for a wake-up): the
 * deadline moves on by its length, so the statements after it have what was left before it.
 */
export async function pausingDeadline<T>(wait: Promise<T>): Promise<T> {
  scoped<() => void>(WAITING)?.();
  const deadline = currentDeadline();
  const started = performance.now();
  try {
    return await wait;
  } finally {
    if (deadline) deadline.at += performance.now() - started;
  }
}
