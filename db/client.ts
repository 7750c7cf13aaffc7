import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { PGlite } from '@electric-sql/pglite';
import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { ExtractTablesWithRelations, sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { runningCommitHooks } from './commit-hooks';
import { createGate, type Gate, guardingEveryQuery } from './guard';
import { applyMigrations } from './migrator';
import { restrictToOwner, withOwnerOnlyUmask } from './owner-only';
import { preparingPglite } from './pglite-prepared';
import { postgresTarget } from './postgres-url';
import { queryLogger } from './query-log';
import * as schema from './schema';
import { recordSchemaVersion, refuseNewerSchema } from './schema-version';
import { SQLSTATE, sqlState } from './sqlstate';

export type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
export type Transaction = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Anything that runs queries: the database or a transaction inside it. */
export type Executor = Database | Transaction;

/**
 * The raw driver beside the drizzle handle: LISTEN/NOTIFY and shutdown need it.
 * `pglite` is the embedded database (one process per data folder); `postgres` a real server.
 */
export type Driver =
  | { kind: 'pglite'; client: PGlite }
  /** `url` as configured: the migration lock opens its own connection with it. */
  | { kind: 'postgres'; client: postgres.Sql; url: string; connectTimeoutS?: number };

/**
 * This process's connections to the database (`simgate_db_pool_connections`): `inUse` of the pool's
 * connections and `idle` ones (together its size), and `waiting`, the queries and transactions that
 * wait for one.
 */
export type PoolState = { inUse: number; idle: number; waiting: number };

export type DatabaseHandle = {
  db: Database;
  driver: Driver;
  close: () => Promise<void>;
  /** The pool as the process sees it now. */
  pool?: () => PoolState;
  /** Entries of an embedded database folder made before that were open to other users, restricted at open. */
  repairedModes?: number;
  /** A request's one deadline for its waits on this database (db/deadline.ts); none on the embedded database. */
  requestDeadlineMs?: number;
};

/**
 * The embedded database is one session inside this process, always there: no pool to run out of,
 * nothing waits for a connection (its queries queue inside PGlite, which says nothing of them).
 */
const PGLITE_POOL: PoolState = { inUse: 0, idle: 1, waiting: 0 };

/**
 * A server's pool seen through the gate (db/guard.ts), which counts the queries and transactions
 * handed to the driver and not yet ended: up to `size` of them hold a connection each, the rest
 * wait. A transaction holds its connection; lone queries may share one (postgres-js pipelines
 * them), so `inUse` is an upper bound.
 */
function poolThroughGate(gate: Gate, size: number): () => PoolState {
  return () => {
    const inUse = Math.min(gate.open, size);
    return { inUse, idle: size - inUse, waiting: gate.open - inUse };
  };
}

/**
 * The folder holding db/migrations and node_modules: the one the server's or a command's launcher
 * names (scripts/serve.mjs, a release's entry points, scripts/package.mjs), else the working
 * directory, where npm runs its scripts.
 */
export const APP_HOME = (globalThis as { __simgateHome?: string }).__simgateHome ?? process.cwd();

export const MIGRATIONS_FOLDER = path.join(APP_HOME, 'db', 'migrations');

// Serialises migrations when several instances start together on one server.
const MIGRATION_LOCK_ID = 72_201_977;

/**
 * PostgreSQL's own page cache inside PGlite's WASM memory, which never shrinks: 128 MB by default. The
 * data files sit in the operating system's cache as well, so a smaller one measured the same under the
 * benchmark (send_vs_ping 0.65×) for about 95 MB less peak memory.
 */
const PGLITE_SHARED_BUFFERS = '32MB';

/**
 * Creates a new embedded database folder (PostgreSQL's initdb, in PGlite) in a child process that
 * then exits. Done in this process, the creation's memory stayed with it for good: the server's peak
 * RSS under the benchmark was about 90 MB higher on a first start than on any later one (505 against
 * 419 MB), and WASM and the C heap do not give memory back. The child imports PGlite by its package
 * name, so it runs from the app's folder, where node_modules is.
 */
async function createPgliteDataDir(dataDir: string): Promise<void> {
  const script = `import { PGlite } from '@electric-sql/pglite';
process.umask(0o077);
const db = new PGlite(process.argv[1]);
await db.waitReady;
await db.close();`;
  await promisify(execFile)(process.execPath, ['--input-type=module', '-e', script, dataDir], {
    cwd: APP_HOME,
    timeout: 120_000,
  });
}

/**
 * Opens the embedded database, in memory or in a folder kept to its owner: the folder is created
 * 0700, what PGlite writes while it opens is created under umask 077, and the modes PGlite sets
 * itself (0666 on a new folder's files) are taken back after it creates the folder, at each open,
 * and at close. `repairedModes` counts the entries of a folder made before that had to be restricted.
 */
export async function openPglite(dataDirOrMemory?: string, options?: { loadDataDir?: Blob }): Promise<DatabaseHandle> {
  const folder = dataDirOrMemory;
  const opening = async () => {
    let repaired = 0;
    if (folder) {
      fs.mkdirSync(folder, { recursive: true, mode: 0o700 });
      const existing = fs.existsSync(path.join(folder, 'PG_VERSION'));
      if (!existing && !options?.loadDataDir) await createPgliteDataDir(folder);
      const restricted = restrictToOwner(folder, { recursive: true });
      if (existing) repaired = restricted;
    }
    // The message search indexes: pg_trgm for substrings (migration 0009), btree_gin for words (0050).
    const pgliteOptions = {
      loadDataDir: options?.loadDataDir,
      extensions: { btree_gin, pg_trgm },
      startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${PGLITE_SHARED_BUFFERS}`],
    };
    const opened = folder ? new PGlite(folder, pgliteOptions) : new PGlite(pgliteOptions);
    await opened.waitReady;
    if (folder) restrictToOwner(folder, { recursive: true });
    return { client: opened, repairedModes: repaired };
  };
  const { client, repairedModes } = folder ? await withOwnerOnlyUmask(opening) : await opening();
  preparingPglite(client);
  const db = drizzlePglite({ client, schema, logger: queryLogger('pglite') }) as unknown as Database;
  runningCommitHooks(db);
  // One session, so one "connection" for batches: sends and heartbeats that arrive together go as one
  // statement, as on a server's pipelined connections (`openPostgres`).
  Object.defineProperty(db, PIPELINE, { value: { db, size: 1, gather: true } satisfies Pipeline });
  const close = async () => {
    await client.close();
    // A file PostgreSQL wrote while open with fopen()'s 0666 (its relation cache, pg_internal.init).
    if (folder) restrictToOwner(folder, { recursive: true });
  };
  return { db, driver: { kind: 'pglite', client }, close, pool: () => PGLITE_POOL, repairedModes };
}

/**
 * How a server database may fail a request instead of holding it (docs/operating.md, "When the
 * database is away"). Every bound ends as 503 SERVICE_UNAVAILABLE with Retry-After (lib/http/route.ts).
 */
export type DatabaseLimits = {
  /** A connection attempt that gets no answer is given up after this long (postgres-js `connect_timeout`). */
  connectTimeoutS: number;
  /** PostgreSQL's `statement_timeout` on the app's connections; the app stops waiting for an answer a little later. */
  statementTimeoutMs: number;
  /** How long a query or transaction may wait for a connection before the request fails. */
  acquireTimeoutMs: number;
  /** Queries and transactions this process may have open at once; past it a request fails at once. */
  maxWaiting: number;
  /** A request's one bound for all of the above together (db/deadline.ts): its connections and statements share it. */
  requestDeadlineMs: number;
};

export const DEFAULT_DATABASE_LIMITS: DatabaseLimits = {
  connectTimeoutS: 5,
  statementTimeoutMs: 10_000,
  acquireTimeoutMs: 5_000,
  maxWaiting: 512,
  requestDeadlineMs: 10_000,
};

/** The longest pause between two connection attempts: a database that is back is in use within it. */
export const RECONNECT_BACKOFF_MAX_S = 2;

/**
 * How long past its `statement_timeout` the app still waits for a statement's answer: a server
 * that enforces the timeout has answered by then, one that does not (frozen, or the network gone)
 * is not going to.
 */
export const STATEMENT_ANSWER_GRACE_MS = 1_000;

/** postgres-js's own backoff (`0.5–1 × 3^retries / 100` seconds), capped at RECONNECT_BACKOFF_MAX_S. */
function reconnectBackoff(retries: number): number {
  return (0.5 + Math.random() / 2) * Math.min(3 ** retries / 100, RECONNECT_BACKOFF_MAX_S);
}

/**
 * A postgres-js client for `url` with up to `max` connections: the pool and the migration lock
 * connection are made alike, so the lock keeps the URL's TLS mode, parameters and socket.
 */
export function connectPostgres(
  url: string,
  max: number,
  connection?: Record<string, string>,
  connectTimeoutS = DEFAULT_DATABASE_LIMITS.connectTimeoutS,
): postgres.Sql {
  const { url: target, host } = postgresTarget(url);
  return postgres(target, {
    ...(host ? { host } : {}),
    ...(connection ? { connection } : {}),
    max,
    connect_timeout: connectTimeoutS,
    backoff: reconnectBackoff,
    onnotice: () => {},
    // Timestamps come back as Date objects either way; keep bigints as numbers where they fit.
    types: { bigint: postgres.BigInt },
  });
}

/**
 * Makes every query drizzle sends through `client` a prepared statement. Drizzle asks postgres-js
 * for an unnamed statement unless a query is `.prepare()`d by name, and postgres-js then parses,
 * describes and plans it on every call, in two round trips. Prepared, a statement is parsed once
 * per connection (keyed by its text and parameter types) and each call is one round trip, with
 * PostgreSQL's plan cache. The statements die with their connection, and postgres-js recycles
 * connections (max_lifetime), so queries whose text varies cannot pile up.
 */
export function preparingEveryQuery(client: postgres.Sql): postgres.Sql {
  const unsafe = client.unsafe.bind(client);
  const patched = client as postgres.Sql & { __preparing?: true };
  if (patched.__preparing) return client;
  patched.__preparing = true;
  client.unsafe = ((query: string, args?: unknown[], options?: postgres.UnsafeQueryOptions) =>
    unsafe(query, args as postgres.ParameterOrJSON<never>[], {
      ...options,
      prepare: true,
    })) as typeof client.unsafe;
  // A transaction (and a savepoint in it) runs on its own connection's client: it prepares too.
  for (const method of ['begin', 'savepoint'] as const) {
    const original = (client as unknown as Record<string, ((...args: unknown[]) => unknown) | undefined>)[method];
    if (typeof original !== 'function') continue;
    (client as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => {
      const callback = args.at(-1) as (sql: postgres.Sql) => unknown;
      return original.call(client, ...args.slice(0, -1), (sql: postgres.Sql) => callback(preparingEveryQuery(sql)));
    };
  }
  return client;
}

/**
 * Whether `error` is PostgreSQL refusing a prepared statement whose result changed shape since it
 * was prepared (SQLSTATE 0A000, "cached plan must not change result type": a migration changed a
 * table the statement returns). The statement did not run, so running it again is safe.
 */
export function isStaleCachedPlan(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; current && typeof current === 'object' && depth < 5; depth++) {
    const { code, message } = current as { code?: unknown; message?: unknown };
    if (
      code === '0A000' &&
      typeof message === 'string' &&
      message.includes('cached plan must not change result type')
    ) {
      return true;
    }
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

/**
 * Runs a transaction that failed on a stale cached plan (`isStaleCachedPlan`) once more. A lone
 * statement postgres-js re-prepares and runs again itself; inside a transaction that retry cannot
 * work (the failed statement aborted the transaction, which rolled back whole), so the whole
 * transaction runs again here, on statements prepared afresh (postgres-js dropped the stale one).
 * Outside the commit hooks' wrapper (db/commit-hooks.ts), so the failed attempt's hooks are dropped.
 */
function retryingStalePlans(db: Database): void {
  const transaction = db.transaction.bind(db);
  db.transaction = (async (...args: Parameters<typeof transaction>) => {
    try {
      return await transaction(...args);
    } catch (error) {
      if (!isStaleCachedPlan(error)) throw error;
      return transaction(...args);
    }
  }) as typeof db.transaction;
}

/**
 * How long a statement on the pipelined connections may wait for a lock before it gives up (and
 * `batchedOnPipeline` in lib/transactions.ts has its items run alone on the pool): the bound on how long it
 * holds up the batches queued behind it on its connection.
 */
export const PIPELINE_LOCK_TIMEOUT_MS = 50;

// On the database object itself, not in a module-level map: Next evaluates this module in several
// bundles, each with its own module state, and the one that opened the database may not be the one
// that asks.
const PIPELINE = Symbol.for('simgate.db.pipeline');

/**
 * `max` pooled connections, plus `pipeline` connections for the hot requests (a send, a steady
 * heartbeat), which go there in batches (lib/transactions.ts `batchedOnPipeline`): a batch pays one socket
 * write, one backend wake-up and one commit where each request on the pool pays its own. A batch
 * that waits on a lock holds up those behind it on its connection, so these connections wait
 * PIPELINE_LOCK_TIMEOUT_MS at most.
 */
export function openPostgres(
  url: string,
  options: { max: number; pipeline?: number; limits?: Partial<DatabaseLimits> },
): DatabaseHandle {
  const limits = { ...DEFAULT_DATABASE_LIMITS, ...options.limits };
  // One gate for both clients: `maxWaiting` bounds the process's waits, whichever connections they use.
  const gate = createGate({
    acquireTimeoutMs: limits.acquireTimeoutMs,
    answerTimeoutMs: limits.statementTimeoutMs + STATEMENT_ANSWER_GRACE_MS,
    maxWaiting: limits.maxWaiting,
    statementTimeoutMs: limits.statementTimeoutMs,
  });
  const statementTimeout = { statement_timeout: `${limits.statementTimeoutMs}ms` };
  const client = guardingEveryQuery(
    preparingEveryQuery(connectPostgres(url, options.max, statementTimeout, limits.connectTimeoutS)),
    gate,
  );
  const db = drizzlePostgres({ client, schema, logger: queryLogger('postgres') }) as unknown as Database;
  runningCommitHooks(db);
  retryingStalePlans(db);
  const pipelineSize = options.pipeline ?? 0;
  const driver: Driver = { kind: 'postgres', client, url, connectTimeoutS: limits.connectTimeoutS };
  const pool = poolThroughGate(gate, options.max + pipelineSize);
  const requestDeadlineMs = limits.requestDeadlineMs;
  if (pipelineSize === 0) {
    return { db, driver, close: () => client.end({ timeout: 5 }), pool, requestDeadlineMs };
  }
  const pipelineClient = guardingEveryQuery(
    preparingEveryQuery(
      connectPostgres(
        url,
        pipelineSize,
        { ...statementTimeout, lock_timeout: `${PIPELINE_LOCK_TIMEOUT_MS}ms` },
        limits.connectTimeoutS,
      ),
    ),
    gate,
  );
  const pipelineDb = drizzlePostgres({
    client: pipelineClient,
    schema,
    logger: queryLogger('postgres'),
  }) as unknown as Database;
  runningCommitHooks(pipelineDb);
  const pipeline: Pipeline = { db: pipelineDb, size: pipelineSize };
  Object.defineProperty(db, PIPELINE, { value: pipeline });
  const close = async () => {
    await Promise.all([client.end({ timeout: 5 }), pipelineClient.end({ timeout: 5 })]);
  };
  return { db, driver, close, pool, requestDeadlineMs };
}

/**
 * The pipelined connections of a database: `size` of them, used through `db`. `gather`: the
 * database runs on this thread (PGlite), so a batch waits for the event loop to take in arrivals.
 */
export type Pipeline = { db: Database; size: number; gather?: boolean };

/** The pipelined connections of `executor` (a database that has them; never a transaction). */
export function pipelineOf(executor: Executor): Pipeline | undefined {
  return (executor as { [PIPELINE]?: Pipeline })[PIPELINE];
}

/**
 * Applies the migrations the database lacks. A database that has migrations this code does not know
 * (migrated by a newer release) is refused with SchemaTooNewError (db/schema-version.ts) rather
 * than run on a schema this code has never seen.
 */
export async function runMigrations(handle: DatabaseHandle, migrationsFolder = MIGRATIONS_FOLDER): Promise<void> {
  if (handle.driver.kind === 'pglite') {
    await refuseNewerSchema(handle.db, migrationsFolder);
    await applyMigrations(handle.db, migrationsFolder);
    await recordSchemaVersion(handle.db, migrationsFolder);
    return;
  }
  // A dedicated single connection holds the advisory lock for the whole migration.
  // No statement timeout here: an online migration's index build may take minutes.
  const lockClient = connectPostgres(handle.driver.url, 1, undefined, handle.driver.connectTimeoutS);
  try {
    await takeMigrationLock(lockClient);
    // Past the advisory lock, a table lock is waited for MIGRATION_LOCK_TIMEOUT_MS at most: traffic
    // queued behind a waiting ALTER TABLE waits no longer than that.
    await lockClient`select set_config('lock_timeout', ${`${MIGRATION_LOCK_TIMEOUT_MS}ms`}, false)`;
    const locked = drizzlePostgres({ client: lockClient }) as unknown as Database;
    await refuseNewerSchema(locked, migrationsFolder);
    await migrateAgainOnLockConflict(() => applyMigrations(locked, migrationsFolder));
    await recordSchemaVersion(locked, migrationsFolder);
    await lockClient`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`;
  } finally {
    await lockClient.end({ timeout: 5 });
  }
}

/** How often an instance that waits for another's migration tries the migration lock again. */
const MIGRATION_LOCK_POLL_MS = 200;

/**
 * Takes the migration lock, trying it again every MIGRATION_LOCK_POLL_MS rather than waiting inside a
 * statement: a waiting statement holds a snapshot, and an online migration's CREATE INDEX CONCURRENTLY
 * waits for every snapshot older than its own, so the instance migrating would wait for the one that
 * waits for it, a deadlock (two web processes starting together on a new database).
 */
async function takeMigrationLock(lockClient: postgres.Sql): Promise<void> {
  for (;;) {
    const [row] = await lockClient<{ taken: boolean }[]>`select pg_try_advisory_lock(${MIGRATION_LOCK_ID}) as taken`;
    if (row?.taken) return;
    await sleep(MIGRATION_LOCK_POLL_MS);
  }
}

/** How long the migration waits for one table lock before it rolls back and tries again. */
export const MIGRATION_LOCK_TIMEOUT_MS = 2_000;
/** Tries of the pending migrations before a lock conflict fails the start. */
export const MIGRATION_ATTEMPTS = 10;

/**
 * Runs `migrate` (the pending migrations, in one transaction but for the online ones: db/migrator.ts)
 * again when it lost a lock conflict with the serving instances' statements: a deadlock (40P01) or a
 * lock it waited for past MIGRATION_LOCK_TIMEOUT_MS (55P03). The failed transaction rolled back whole,
 * and an online migration's statements are idempotent, so the next try takes up where it stopped; it
 * waits a little longer (0.5 s, 1 s, … up to 5 s, with jitter) for the traffic to pass.
 */
export async function migrateAgainOnLockConflict(
  migrate: () => Promise<void>,
  attempts = MIGRATION_ATTEMPTS,
  pause: (ms: number) => Promise<void> = sleep,
): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      await migrate();
      return;
    } catch (error) {
      if (attempt >= attempts || !isLockConflict(error)) throw error;
      const wait = Math.min(5_000, 500 * 2 ** (attempt - 1));
      console.warn(
        JSON.stringify({
          level: 'warn',
          event: 'migration_lock_conflict',
          attempt,
          code: sqlState(error),
          retry_in_ms: wait,
        }),
      );
      await pause(wait / 2 + Math.random() * (wait / 2));
    }
  }
}

function isLockConflict(error: unknown): boolean {
  const code = sqlState(error);
  return code === SQLSTATE.deadlockDetected || code === SQLSTATE.lockNotAvailable;
}

/** Runs `work` holding the migration lock (PostgreSQL): a restore must not race a starting instance's migration. */
export async function withMigrationLock<T>(url: string, work: () => Promise<T>): Promise<T> {
  const lockClient = connectPostgres(url, 1);
  try {
    await takeMigrationLock(lockClient);
    try {
      return await work();
    } finally {
      await lockClient`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`;
    }
  } finally {
    await lockClient.end({ timeout: 5 });
  }
}

/** Rows of a raw `db.execute(sql)` whatever the driver (postgres-js answers an array, PGlite `{ rows }`). */
export async function queryRows<T>(executor: Executor, query: ReturnType<typeof sql>): Promise<T[]> {
  const result = (await executor.execute(query)) as unknown;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}
