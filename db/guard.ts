import type postgres from 'postgres';
import { currentDeadline, leftOf, type RequestDeadline } from './deadline';

/**
 * The bounds on how long a request waits for a server database (db/client.ts `DatabaseLimits`):
 * past one, the request's query fails with this error, which lib/http/route.ts answers with 503.
 */
export class DatabaseUnavailableError extends Error {
  constructor(
    readonly code: 'DATABASE_BUSY' | 'DATABASE_ACQUIRE_TIMEOUT' | 'DATABASE_NO_ANSWER' | 'DATABASE_DEADLINE',
    message: string,
  ) {
    super(message);
    this.name = 'DatabaseUnavailableError';
  }
}

/**
 * `statementTimeoutMs`: the connections' own `statement_timeout`, which a transaction lowers to what
 * is left of its request's deadline when that is well below it.
 */
export type GateLimits = {
  acquireTimeoutMs: number;
  answerTimeoutMs: number;
  maxWaiting: number;
  statementTimeoutMs?: number;
};

/** Queries and transactions this process has handed to the driver and not yet seen end, across its clients. */
export type Gate = { open: number; limits: GateLimits };

export function createGate(limits: GateLimits): Gate {
  return { open: 0, limits };
}

type Fail = (error: Error) => void;
type Callback = (sql: postgres.Sql) => unknown;
type Methods = Record<string, ((...args: unknown[]) => unknown) | undefined>;

const busy = () =>
  new DatabaseUnavailableError('DATABASE_BUSY', 'Too many requests are waiting for the database; refused at once.');
const notAcquired = (ms: number) =>
  new DatabaseUnavailableError('DATABASE_ACQUIRE_TIMEOUT', `No database connection within ${ms} ms.`);
const noAnswer = (ms: number) =>
  new DatabaseUnavailableError('DATABASE_NO_ANSWER', `No answer from the database within ${ms} ms.`);
export const deadlinePassed = (deadline: RequestDeadline) =>
  new DatabaseUnavailableError(
    'DATABASE_DEADLINE',
    `The request's ${deadline.ms} ms for the database (REQUEST_DEADLINE_MS) have passed.`,
  );

/** A wait of `ms` failing with `error`, cut to what is left of `deadline` (then failing with DATABASE_DEADLINE). */
type Bound = { ms: number; error: () => Error };
function bounded(ms: number, error: () => Error, deadline: RequestDeadline | undefined): Bound {
  if (!deadline) return { ms, error };
  const left = leftOf(deadline);
  return left < ms ? { ms: left, error: () => deadlinePassed(deadline) } : { ms, error };
}

/**
 * `promise`, or a DATABASE_DEADLINE error when the current request's deadline passes first: for a
 * wait on work that several requests share (lib/batch.ts), which runs with no deadline of its own.
 * `onPassed` is called then, before the error is thrown.
 */
export function beforeDeadline<T>(promise: Promise<T>, onPassed?: () => void): Promise<T> {
  const deadline = currentDeadline();
  if (!deadline) return promise;
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      onPassed?.();
      reject(deadlinePassed(deadline));
    }, leftOf(deadline));
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}

/**
 * How much below the connections' `statement_timeout` a request's deadline must be for its
 * transaction to lower it: a request that began a moment ago (all of them, when the database
 * answers) sends nothing more.
 */
const LOWER_STATEMENT_TIMEOUT_BY_MS = 1_000;

/**
 * Bounds every query and transaction `client` runs, so that a database that is down, slow to
 * reconnect or frozen fails requests instead of holding them:
 * - at most `maxWaiting` open at once in the process (the gate), past which a query fails at once;
 * - a query or transaction that has no connection after `acquireTimeoutMs` fails (a transaction
 *   that gets one later rolls back without running; a lone query still runs, its answer unread);
 * - a statement whose answer does not come within `answerTimeoutMs` of being sent fails, and so
 *   does its transaction (which, once the database answers again, rolls back);
 * - in a request (db/deadline.ts), each of those waits is cut to what is left of the request's one
 *   deadline, past which it fails with DATABASE_DEADLINE; a transaction that begins with much less
 *   left than the connection's `statement_timeout` lowers it to that (`set_config(…, true)`, sent
 *   with its first statement), so that the database stops its work then too.
 * The driver's query is left to end on its own: the gate counts it until then.
 */
export function guardingEveryQuery(client: postgres.Sql, gate: Gate): postgres.Sql {
  const unsafe = client.unsafe.bind(client);
  client.unsafe = ((...args: Parameters<typeof client.unsafe>) =>
    // A transaction's own BEGIN, which postgres-js sends through `unsafe` with `onexecute`: the
    // transaction holds the gate and bounds its wait already (counted twice, it could be refused).
    (args[2] as { onexecute?: unknown } | undefined)?.onexecute
      ? unsafe(...args)
      : guardQuery(unsafe(...args), gate, undefined)) as typeof client.unsafe;
  const methods = client as unknown as Methods;
  const begin = methods.begin;
  if (typeof begin === 'function') {
    methods.begin = (...args: unknown[]) => guardTransaction(gate, begin.bind(client), args);
  }
  return client;
}

function guardTransaction(gate: Gate, begin: (...args: unknown[]) => unknown, args: unknown[]): Promise<unknown> {
  const { acquireTimeoutMs, answerTimeoutMs, maxWaiting, statementTimeoutMs } = gate.limits;
  const deadline = currentDeadline();
  if (deadline && leftOf(deadline) <= 0) return Promise.reject(deadlinePassed(deadline));
  if (gate.open >= maxWaiting) return Promise.reject(busy());
  gate.open++;
  const callback = args.at(-1) as Callback;
  let started = false;
  let abandoned: Error | undefined;
  return new Promise((resolve, reject) => {
    const acquire = bounded(acquireTimeoutMs, () => notAcquired(acquireTimeoutMs), deadline);
    let timer = setTimeout(() => started || fail(acquire.error()), acquire.ms);
    const fail: Fail = (error) => {
      abandoned ??= error;
      clearTimeout(timer);
      reject(error);
    };
    const underlying = Promise.resolve(
      begin(...args.slice(0, -1), async (sql: postgres.Sql) => {
        if (abandoned) throw abandoned;
        started = true;
        clearTimeout(timer);
        if (deadline && statementTimeoutMs !== undefined) lowerStatementTimeout(sql, deadline, statementTimeoutMs);
        const result = await callback(guardingTransaction(sql, fail));
        if (abandoned) throw abandoned;
        // The commit is the driver's own statement: bounded here.
        const commit = bounded(answerTimeoutMs, () => noAnswer(answerTimeoutMs), deadline);
        timer = setTimeout(() => fail(commit.error()), commit.ms);
        return result;
      }),
    );
    underlying.then(
      (value) => {
        gate.open--;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        gate.open--;
        clearTimeout(timer);
        reject(error);
      },
    );
  });

  function guardingTransaction(sql: postgres.Sql, fail: Fail): postgres.Sql {
    const txUnsafe = sql.unsafe.bind(sql);
    sql.unsafe = ((...unsafeArgs: Parameters<typeof sql.unsafe>) =>
      guardQuery(txUnsafe(...unsafeArgs), gate, fail, deadline)) as typeof sql.unsafe;
    const methods = sql as unknown as Methods;
    const savepoint = methods.savepoint;
    if (typeof savepoint === 'function') {
      methods.savepoint = (...spArgs: unknown[]) => {
        const inner = spArgs.at(-1) as Callback;
        return savepoint.call(sql, ...spArgs.slice(0, -1), (spSql: postgres.Sql) =>
          inner(guardingTransaction(spSql, fail)),
        );
      };
    }
    return sql;
  }
}

/**
 * `query` (lazy: postgres-js runs it on its first `then`) with its wait bounded. Inside a
 * transaction (`failTransaction`) the connection is held already: only the answer is bounded, and
 * a statement that gets none fails its transaction too.
 */
function guardQuery<Q extends postgres.PendingQuery<postgres.Row[]>>(
  query: Q,
  gate: Gate,
  failTransaction?: Fail,
  transactionDeadline?: RequestDeadline,
): Q {
  const then = query.then;
  let outcome: Promise<unknown> | undefined;
  const settle = (): Promise<unknown> => {
    const { acquireTimeoutMs, answerTimeoutMs, maxWaiting } = gate.limits;
    const deadline = failTransaction ? transactionDeadline : currentDeadline();
    if (deadline && leftOf(deadline) <= 0) {
      const error = deadlinePassed(deadline);
      failTransaction?.(error);
      return Promise.reject(error);
    }
    if (!failTransaction) {
      if (gate.open >= maxWaiting) return Promise.reject(busy());
      gate.open++;
    }
    return new Promise((resolve, reject) => {
      const fail = (error: Error) => {
        reject(error);
        failTransaction?.(error);
      };
      const sent = () => (query as unknown as { state: unknown }).state != null;
      const answer = () => bounded(answerTimeoutMs, () => noAnswer(answerTimeoutMs), deadline);
      const acquire = bounded(acquireTimeoutMs, () => notAcquired(acquireTimeoutMs), deadline);
      const inTransaction = failTransaction ? answer() : undefined;
      let timer = inTransaction
        ? setTimeout(() => fail(inTransaction.error()), inTransaction.ms)
        : setTimeout(() => {
            if (!sent()) return fail(acquire.error());
            const unanswered = answer();
            timer = setTimeout(() => fail(unanswered.error()), unanswered.ms);
          }, acquire.ms);
      const done = () => {
        clearTimeout(timer);
        if (!failTransaction) gate.open--;
      };
      then.call(
        query,
        (value: unknown) => {
          done();
          resolve(value);
        },
        (error: unknown) => {
          done();
          reject(error);
        },
      );
    });
  };
  // The driver's query is a lazy promise: its own `then` runs it, so the bound goes there.
  // biome-ignore lint/suspicious/noThenProperty: replacing the thenable's own then is the point
  (query as { then: unknown }).then = (
    onFulfilled?: (value: unknown) => unknown,
    onRejected?: (error: unknown) => unknown,
  ) => {
    outcome ??= settle();
    return outcome.then(onFulfilled, onRejected);
  };
  return query;
}

/**
 * Sends `set_config('statement_timeout', …, true)` for the rest of the transaction, without
 * waiting for it (postgres-js pipelines it before the transaction's first statement), when what is
 * left of `deadline` is well below the connection's `statement_timeout`. A failure aborts the
 * transaction, whose next statement then fails.
 */
function lowerStatementTimeout(sql: postgres.Sql, deadline: RequestDeadline, statementTimeoutMs: number): void {
  const left = Math.floor(leftOf(deadline));
  if (left > statementTimeoutMs - LOWER_STATEMENT_TIMEOUT_BY_MS) return;
  sql
    .unsafe("select set_config('statement_timeout', $1, true)", [`${Math.max(1, left)}ms`])
    .execute()
    .catch(() => {});
}
