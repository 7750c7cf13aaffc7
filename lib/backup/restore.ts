import fs from 'node:fs';
import path from 'node:path';
import { Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { sql } from 'drizzle-orm';
import {
  type DatabaseHandle,
  type DatabaseLocation,
  type Executor,
  embeddedFolder,
  MIGRATIONS_FOLDER,
  openPglite,
  openPostgres,
  queryRows,
  runMigrations,
  withMigrationLock,
} from '@/db';
import {
  codeSchemaVersion,
  databaseSchemaVersion,
  SchemaTooNewError,
  type SchemaVersion,
  schemaTooNewMessage,
  schemaVersionFrom,
} from '@/db/schema-version';
import { type BackupHeader, readHeader, verifyChecksum } from './archive';
import { serverRunning } from './live';
import { dumpedMigrations, readThroughDump, replaceWithDump } from './postgres';
import { checkSealedSecrets, type SecretsCheck } from './secrets';

export type RestoreResult = {
  header: BackupHeader;
  /** The schema the database has after the restore: the code's own (migrated forward if the backup was older). */
  schema: { tag: string; migratedForward: boolean };
  /** Whether a database with data was overwritten (`--force`). */
  replaced: boolean;
  secrets: SecretsCheck;
};

/** Tables of the public schema that hold at least one row. */
async function tablesWithRows(executor: Executor): Promise<string[]> {
  const tables = await queryRows<{ table_name: string }>(
    executor,
    sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE'`,
  );
  const full: string[] = [];
  for (const { table_name: name } of tables) {
    const [row] = await queryRows<{ found: boolean }>(
      executor,
      sql`select exists (select 1 from ${sql.identifier(name)}) as found`,
    );
    if (row?.found) full.push(name);
  }
  return full;
}

/** Refuses a backup of another database kind. */
function checkKind(header: BackupHeader, kind: BackupHeader['database']): void {
  if (header.database !== kind) {
    throw new Error(
      `this backup is of ${header.database === 'pglite' ? 'the embedded database' : 'a PostgreSQL database'}; ` +
        `it restores only onto the same kind (${kind === 'pglite' ? 'unset DATABASE_URL' : 'set DATABASE_URL'} to match)`,
    );
  }
}

/**
 * Refuses a dump from newer code; says whether it needs migrating forward. `version` is read from the
 * dump's own migrations table, never from the header, which anyone can edit.
 */
function checkVersion(version: SchemaVersion): { migratedForward: boolean } {
  if (version.unknown.length > 0) {
    throw new SchemaTooNewError(schemaTooNewMessage('backup', version, MIGRATIONS_FOLDER));
  }
  return { migratedForward: version.createdAt < codeSchemaVersion(MIGRATIONS_FOLDER).createdAt };
}

function refuseOverwrite(where: string, full: string[]): never {
  throw new Error(
    `${where} holds data (${full.slice(0, 5).join(', ')}${full.length > 5 ? ', …' : ''}): ` +
      'restore refuses to overwrite it. Take a backup of it first if you may need it, then run restore again with --force.',
  );
}

async function finish(
  handle: DatabaseHandle,
  header: BackupHeader,
  migratedForward: boolean,
  replaced: boolean,
): Promise<RestoreResult> {
  await runMigrations(handle);
  return {
    header,
    schema: { tag: codeSchemaVersion(MIGRATIONS_FOLDER).tag, migratedForward },
    replaced,
    secrets: await checkSealedSecrets(handle.db),
  };
}

/**
 * `npm run ops -- restore <file> [--force]`: replaces the configured database with the backup's,
 * then migrates it forward to this code's schema. Stop every instance first.
 *
 * All or nothing: the whole file is checked before the database is touched (its recorded length
 * and SHA-256; a backup without them is read through to its end), and the switch itself is one
 * transaction (PostgreSQL: postgres.ts `replaceWithDump`) or one folder rename (embedded). A file
 * that is cut short, altered or not a backup leaves the database exactly as it was.
 */
export async function restoreDatabase(
  location: DatabaseLocation,
  file: string,
  options: { force?: boolean } = {},
): Promise<RestoreResult> {
  const { header, offset } = readHeader(file);
  return 'url' in location
    ? restorePostgres(location.url, file, header, offset, options)
    : restoreEmbedded(location.dataDir, file, header, offset, options);
}

async function restorePostgres(
  url: string,
  file: string,
  header: BackupHeader,
  offset: number,
  options: { force?: boolean },
): Promise<RestoreResult> {
  checkKind(header, 'postgres');
  if (!(await verifyChecksum(file, header, offset))) await readThroughDump(file, offset);
  const dumped = await dumpedMigrations(file, offset);
  const { migratedForward } = checkVersion(schemaVersionFrom(dumped.applied, dumped.recorded, MIGRATIONS_FOLDER));
  const handle = openPostgres(url, { max: 1, limits: { statementTimeoutMs: 10 * 60_000 } });
  try {
    const [others] = await queryRows<{ n: number }>(
      handle.db,
      sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()
          and backend_type = 'client backend'`,
    );
    if (Number(others?.n) > 0) {
      throw new Error(
        `${others?.n} other connection(s) to the database: stop every Simgate instance and worker, then run restore again.`,
      );
    }
    const full = await tablesWithRows(handle.db);
    if (full.length > 0 && !options.force) refuseOverwrite('The database', full);
    // Under the migration lock, so that no instance starting now migrates the database meanwhile.
    await withMigrationLock(url, () => replaceWithDump(url, file, offset));
    return await finish(handle, header, migratedForward, full.length > 0);
  } finally {
    await handle.close();
  }
}

/**
 * Reads an embedded backup's gzipped dump to its end, which checks its length and CRC: for a backup
 * whose header has no checksum. Throws when it is not gzip or ends early.
 */
async function readThroughGzip(file: string, offset: number): Promise<void> {
  const discard = new Writable({ write: (_chunk, _encoding, done) => done() });
  await pipeline(fs.createReadStream(file, { start: offset }), createGunzip(), discard).catch((error: Error) => {
    throw unreadableEmbeddedDump(file, error);
  });
}

function unreadableEmbeddedDump(file: string, error: Error): Error {
  return new Error(
    `${file} does not hold a readable embedded-database dump (${error.message}). Nothing was changed; restore an intact copy.`,
  );
}

async function restoreEmbedded(
  dataDir: string,
  file: string,
  header: BackupHeader,
  offset: number,
  options: { force?: boolean },
): Promise<RestoreResult> {
  checkKind(header, 'pglite');
  const running = serverRunning(dataDir);
  if (running) {
    throw new Error(
      `A Simgate server (pid ${running.pid}) is running on ${dataDir}: stop it, run restore again, then start it.`,
    );
  }
  const folder = embeddedFolder(dataDir);
  let full: string[] = [];
  if (fs.existsSync(path.join(folder, 'PG_VERSION'))) {
    const current = await openPglite(folder);
    try {
      full = await tablesWithRows(current.db);
    } finally {
      await current.close();
    }
    if (full.length > 0 && !options.force) refuseOverwrite(`The embedded database in ${dataDir}`, full);
  }
  if (!(await verifyChecksum(file, header, offset))) await readThroughGzip(file, offset);
  // Restored beside the current folder, which is swapped for it once the restore is complete: a
  // failure before the rename leaves the current folder untouched.
  const staging = `${folder}.restoring`;
  fs.rmSync(staging, { recursive: true, force: true });
  const dump = (await fs.openAsBlob(file)).slice(offset);
  let result: RestoreResult;
  try {
    const handle = await openPglite(staging, { loadDataDir: dump }).catch((error: Error) => {
      throw unreadableEmbeddedDump(file, error);
    });
    try {
      const { migratedForward } = checkVersion(await databaseSchemaVersion(handle.db, MIGRATIONS_FOLDER));
      // A copy of the data folder carries its rows; a restored database starts without them.
      await handle.db.execute(
        sql`do $$ begin if to_regclass('public.dev_inbox') is not null then truncate dev_inbox; end if; end $$`,
      );
      result = await finish(handle, header, migratedForward, full.length > 0);
    } finally {
      await handle.close();
    }
  } catch (error) {
    fs.rmSync(staging, { recursive: true, force: true });
    throw error;
  }
  const replaced = `${folder}.replaced`;
  fs.rmSync(replaced, { recursive: true, force: true });
  if (fs.existsSync(folder)) fs.renameSync(folder, replaced);
  fs.renameSync(staging, folder);
  fs.rmSync(replaced, { recursive: true, force: true });
  return result;
}
