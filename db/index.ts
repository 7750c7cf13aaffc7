import fs from 'node:fs';
import path from 'node:path';
import { type DatabaseHandle, type DatabaseLimits, openPglite, openPostgres, runMigrations } from './client';
import { currentDeadline, withDeadline } from './deadline';
import { restrictToOwner } from './owner-only';

export * from './client';
export { afterCommit } from './commit-hooks';
export { outsideDeadline, pausingDeadline, tellingWaits } from './deadline';
export { beforeDeadline } from './guard';
export { queryLogging, withQueryOrigin } from './query-log';

/**
 * Where the process's database is: a server (`url`, pool size) or the embedded database's folder.
 * db/ reads no environment: each entry point passes what lib/config read, before first use.
 */
export type DatabaseLocation =
  | { url: string; poolSize: number; pipelineSize: number; limits?: Partial<DatabaseLimits> }
  | { dataDir: string };

type DbGlobal = { handle?: Promise<DatabaseHandle>; opened?: DatabaseHandle; location?: DatabaseLocation };
// One handle per process: Next evaluates this module in several bundles (instrumentation,
// routes, pages) and all must share the embedded database, which allows one opener per folder.
const globalForDb = globalThis as typeof globalThis & { __simgateDb?: DbGlobal };
globalForDb.__simgateDb ??= {};
const state: DbGlobal = globalForDb.__simgateDb;

/** The embedded database's own folder inside DATA_DIR (beside the generated secret). */
export function embeddedFolder(dataDir: string): string {
  return path.join(dataDir, 'pglite');
}

/**
 * The embedded database in DATA_DIR, which is kept to its owner as the database's own folder is
 * (db/owner-only.ts): the data folder itself is made 0700, or restricted when it was made before.
 */
async function openEmbedded(dataDir: string): Promise<DatabaseHandle> {
  fs.mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const repaired = restrictToOwner(dataDir, { recursive: false });
  const handle = await openPglite(embeddedFolder(dataDir));
  return { ...handle, repairedModes: repaired + (handle.repairedModes ?? 0) };
}

export function locateDatabase(location: DatabaseLocation): void {
  state.location = location;
}

async function openLocated(): Promise<DatabaseHandle> {
  const location = state.location;
  if (!location) throw new Error('getDatabase(): call locateDatabase(config.database) first (the entry points do)');
  // The embedded database lives beside the generated secret, in its own folder.
  const handle =
    'url' in location
      ? openPostgres(location.url, { max: location.poolSize, pipeline: location.pipelineSize, limits: location.limits })
      : await openEmbedded(location.dataDir);
  try {
    await runMigrations(handle);
  } catch (error) {
    await handle.close().catch(() => {});
    throw error;
  }
  return handle;
}

/** The process's database, opened and migrated on first use. A failed open is not cached. */
export function getDatabase(): Promise<DatabaseHandle> {
  if (!state.handle) {
    const opening = openLocated();
    state.handle = opening;
    opening.then(
      (handle) => {
        if (state.handle === opening) state.opened = handle;
      },
      () => {
        if (state.handle === opening) state.handle = undefined;
      },
    );
  }
  return state.handle;
}

export async function getDb() {
  return (await getDatabase()).db;
}

/** Tests and scripts install their own handle (a fresh test database, a CLI's connection). */
export function setDatabase(handle: DatabaseHandle | undefined): void {
  state.handle = handle ? Promise.resolve(handle) : undefined;
  state.opened = handle;
}

/** The process's database once open (undefined before, or after it is closed): for readings that must not wait. */
export function openedDatabase(): DatabaseHandle | undefined {
  return state.opened;
}

export async function closeDatabase(): Promise<void> {
  const pending = state.handle;
  state.handle = undefined;
  state.opened = undefined;
  if (pending) await (await pending).close();
}

/**
 * Runs a request's `work` under its one deadline for the database (REQUEST_DEADLINE_MS, db/deadline.ts):
 * on a server database, once open; the embedded database has no pool to wait for and no deadline.
 * Work already under a deadline keeps it: npm start's direct lane starts the request's deadline
 * before its own lookups, and route() then shares it.
 */
export function withRequestDeadline<T>(work: () => Promise<T>): Promise<T> {
  const ms = state.opened?.requestDeadlineMs;
  return ms === undefined || currentDeadline() ? work() : withDeadline(ms, work);
}
