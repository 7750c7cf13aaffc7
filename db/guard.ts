import type postgres from 'postgres';

/**
 * The bounds on how long a request waits for a server database (db/client.ts `DatabaseLimits`):
 * past one, the request's query fails with this error, which lib/http/route.ts answers with 503.
 */
export class DatabaseUnavailableError extends Error {
  constructor(
    readonly code: 'DATABASE_BUSY' | 'DATABASE_ACQUIRE_TIMEOUT' | 'DATABASE_NO_ANSWER',
    message: string,
  ) {
    super(message);
    this.name = 'DatabaseUnavailableError';
  }
}

export type GateLimits = { acquireTimeoutMs: number; answerTimeoutMs: number; maxWaiting: number };

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

/**
 * Bounds every query and transaction `client` runs, so that a database that is down, slow to
 * reconnect or frozen fails requests instead of holding them:
 * - at most `maxWaiting` open at once in the process (the gate), past which a query fails at once;
 * - a query or transaction that has no connection after `acquireTimeoutMs` fails (a transaction
 *   that gets one later rolls back without running; a lone query still runs, its answer unread);
 * - a statement whose answer does not come within `answerTimeoutMs` of being sent fails, and so
 *   does its transaction (which, once the database answers again, rolls back).
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
  const { acquireTimeoutMs, answerTimeoutMs, maxWaiting } = gate.limits;
  if (gate.open >= maxWaiting) return Promise.reject(busy());
  gate.open++;
  const callback = args.at(-1) as Callback;
  let started = false;
  let abandoned: Error | undefined;
  return new Promise((resolve, reject) => {
    let timer = setTimeout(() => started || fail(notAcquired(acquireTimeoutMs)), acquireTimeoutMs);
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
        const result = await callback(guardingTransaction(sql, fail));
        if (abandoned) throw abandoned;
        // The commit is the driver's own statement: bounded here.
        timer = setTimeout(() => fail(noAnswer(answerTimeoutMs)), answerTimeoutMs);
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
      guardQuery(txUnsafe(...unsafeArgs), gate, fail)) as typeof sql.unsafe;
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
function guardQuery<Q extends postgres.PendingQuery<postgres.Row[]>>(query: Q, gate: Gate, failTransaction?: Fail): Q {
  const then = query.then;
  let outcome: Promise<unknown> | undefined;
  const settle = (): Promise<unknown> => {
    const { acquireTimeoutMs, answerTimeoutMs, maxWaiting } = gate.limits;
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
      let timer = failTransaction
        ? setTimeout(() => fail(noAnswer(answerTimeoutMs)), answerTimeoutMs)
        : setTimeout(() => {
            if (!sent()) return fail(notAcquired(acquireTimeoutMs));
            timer = setTimeout(() => fail(noAnswer(answerTimeoutMs)), answerTimeoutMs);
          }, acquireTimeoutMs);
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
