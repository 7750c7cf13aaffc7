import fs from 'node:fs';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import pkg from '@/package.json';
import type { Executor } from './client';

/**
 * Which migrations a database has had, against those this code knows (db/migrations/meta/_journal.json).
 * Drizzle's migrator keeps each applied migration's `created_at` (the journal entry's `when`) and the
 * hash of its SQL in `drizzle.__drizzle_migrations`; beside it `drizzle.simgate_schema_versions`
 * names the code that applied a database's newest migration, for the messages below.
 */

/** The running code's version (package.json's, as in lib/version.ts: db/ imports nothing from lib). */
const CODE_VERSION: string = pkg.version;

export type JournalEntry = { idx: number; tag: string; when: number };

/** The migrations this code ships, in order. */
export function journal(migrationsFolder: string): JournalEntry[] {
  const file = path.join(migrationsFolder, 'meta', '_journal.json');
  const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as { entries: JournalEntry[] };
  return parsed.entries.map(({ idx, tag, when }) => ({ idx, tag, when }));
}

/** A database's schema as far as migrations go: its newest applied migration, and who applied it. */
export type SchemaVersion = {
  /** The newest applied migration's journal `when` (0: none applied). */
  createdAt: number;
  /** Its tag, when this code or the recorded version knows it. */
  tag?: string;
  /** The Simgate version that applied it, when recorded. */
  appVersion?: string;
  /** Applied migrations this code's journal does not have. */
  unknown: number[];
};

/** The code's own schema version: its newest migration. */
export function codeSchemaVersion(migrationsFolder: string): { createdAt: number; tag: string; appVersion: string } {
  const last = journal(migrationsFolder).at(-1);
  return { createdAt: last?.when ?? 0, tag: last?.tag ?? '(none)', appVersion: CODE_VERSION };
}

async function rows<T>(executor: Executor, query: ReturnType<typeof sql>): Promise<T[]> {
  const result = (await executor.execute(query)) as unknown;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}

/** What `drizzle.simgate_schema_versions` says of a migration: the Simgate version that applied it. */
export type RecordedVersion = { createdAt: number; tag: string; appVersion: string };

/**
 * A schema version from what drizzle's table holds (the `created_at` of each applied migration) and
 * what simgate_schema_versions records: read from a database, or from the data of a backup's dump.
 */
export function schemaVersionFrom(
  applied: number[],
  recorded: RecordedVersion[],
  migrationsFolder: string,
): SchemaVersion {
  const sorted = [...applied].sort((a, b) => a - b);
  const known = new Map(journal(migrationsFolder).map((entry) => [entry.when, entry.tag]));
  const createdAt = sorted.at(-1) ?? 0;
  const newest = recorded.find((entry) => entry.createdAt === createdAt);
  return {
    createdAt,
    tag: known.get(createdAt) ?? newest?.tag,
    appVersion: newest?.appVersion,
    unknown: sorted.filter((when) => !known.has(when)),
  };
}

/** The database's schema version, read from drizzle's table (nothing applied: createdAt 0). */
export async function databaseSchemaVersion(executor: Executor, migrationsFolder: string): Promise<SchemaVersion> {
  const [tables] = await rows<{ migrations: string | null; versions: string | null }>(
    executor,
    sql`select to_regclass('drizzle.__drizzle_migrations')::text as migrations,
               to_regclass('drizzle.simgate_schema_versions')::text as versions`,
  );
  if (!tables?.migrations) return { createdAt: 0, unknown: [] };
  const applied = (
    await rows<{ created_at: string | number | bigint }>(
      executor,
      sql`select created_at from drizzle.__drizzle_migrations order by created_at`,
    )
  ).map((row) => Number(row.created_at));
  const recorded = tables.versions
    ? await rows<{ created_at: string | number | bigint; tag: string; app_version: string }>(
        executor,
        sql`select created_at, tag, app_version from drizzle.simgate_schema_versions`,
      )
    : [];
  return schemaVersionFrom(
    applied,
    recorded.map((row) => ({ createdAt: Number(row.created_at), tag: row.tag, appVersion: row.app_version })),
    migrationsFolder,
  );
}

/** A database (or a backup of one) migrated by newer code than this: running on it would be guessing. */
export class SchemaTooNewError extends Error {}

function versionName(version: { tag?: string; appVersion?: string; createdAt: number }): string {
  const code = version.appVersion ? `Simgate ${version.appVersion}` : 'a newer Simgate';
  return `${code}, migration ${version.tag ?? `created at ${version.createdAt}`}`;
}

/** The sentence both the start-up check and `restore` say when the schema is newer than the code. */
export function schemaTooNewMessage(
  what: 'database' | 'backup',
  found: Pick<SchemaVersion, 'tag' | 'appVersion' | 'createdAt'>,
  migrationsFolder: string,
): string {
  const code = codeSchemaVersion(migrationsFolder);
  return (
    `The ${what} was migrated by newer code (${versionName(found)}) than this Simgate ${code.appVersion} ` +
    `knows (its newest migration is ${code.tag}). Run Simgate ${found.appVersion ?? 'of that release'} or newer` +
    (what === 'database' ? ', or restore a backup taken before the upgrade.' : ' to restore it.')
  );
}

/** Throws SchemaTooNewError when the database has migrations this code does not know. */
export async function refuseNewerSchema(executor: Executor, migrationsFolder: string): Promise<void> {
  const version = await databaseSchemaVersion(executor, migrationsFolder);
  if (version.unknown.length > 0)
    throw new SchemaTooNewError(schemaTooNewMessage('database', version, migrationsFolder));
}

/** Records that this code's newest migration was applied by this version (first writer kept). */
export async function recordSchemaVersion(executor: Executor, migrationsFolder: string): Promise<void> {
  const code = codeSchemaVersion(migrationsFolder);
  await executor.execute(sql`create table if not exists drizzle.simgate_schema_versions (
    created_at bigint primary key,
    tag text not null,
    app_version text not null,
    applied_at timestamptz not null default now()
  )`);
  await executor.execute(
    sql`insert into drizzle.simgate_schema_versions (created_at, tag, app_version)
        values (${code.createdAt}, ${code.tag}, ${code.appVersion}) on conflict (created_at) do nothing`,
  );
}
