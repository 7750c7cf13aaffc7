import fs from 'node:fs';
import path from 'node:path';
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
import { codeSchemaVersion, journal, SchemaTooNewError, schemaTooNewMessage } from '@/db/schema-version';
import { type BackupHeader, readHeader } from './archive';
import { serverRunning } from './live';
import { pgRestore } from './postgres';
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

/** Refuses a backup of another database kind or from newer code; says whether it needs migrating forward. */
function checkBackup(header: BackupHeader, kind: BackupHeader['database']): { migratedForward: boolean } {
  if (header.database !== kind) {
    throw new Error(
      `this backup is of ${header.database === 'pglite' ? 'the embedded database' : 'a PostgreSQL database'}; ` +
        `it restores only onto the same kind (${kind === 'pglite' ? 'unset DATABASE_URL' : 'set DATABASE_URL'} to match)`,
    );
  }
  const known = new Set(journal(MIGRATIONS_FOLDER).map((entry) => entry.when));
  if (header.schema.createdAt !== 0 && !known.has(header.schema.createdAt)) {
    throw new SchemaTooNewError(schemaTooNewMessage('backup', header.schema, MIGRATIONS_FOLDER));
  }
  return { migratedForward: header.schema.createdAt < codeSchemaVersion(MIGRATIONS_FOLDER).createdAt };
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
  const { migratedForward } = checkBackup(header, 'postgres');
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
    // Under the migration lock, so that no instance starting now migrates the half-restored database.
    await withMigrationLock(url, async () => {
      await handle.db.execute(sql.raw('drop schema if exists drizzle cascade'));
      await handle.db.execute(sql.raw('drop schema public cascade'));
      await handle.db.execute(sql.raw('create schema public'));
      await pgRestore(url, file, offset);
    });
    return await finish(handle, header, migratedForward, full.length > 0);
  } finally {
    await handle.close();
  }
}

async function restoreEmbedded(
  dataDir: string,
  file: string,
  header: BackupHeader,
  offset: number,
  options: { force?: boolean },
): Promise<RestoreResult> {
  const { migratedForward } = checkBackup(header, 'pglite');
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
  // Restored beside the current folder, which is swapped for it once the restore is complete.
  const staging = `${folder}.restoring`;
  fs.rmSync(staging, { recursive: true, force: true });
  const dump = (await fs.openAsBlob(file)).slice(offset);
  let result: RestoreResult;
  try {
    const handle = await openPglite(staging, { loadDataDir: dump });
    try {
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
