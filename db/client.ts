import fs from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { ExtractTablesWithRelations, sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import { migrate as migratePostgres } from 'drizzle-orm/postgres-js/migrator';
import postgres from 'postgres';
import * as schema from './schema';

export type Schema = typeof schema;
export type Database = PgDatabase<PgQueryResultHKT, Schema>;
export type Transaction = PgTransaction<PgQueryResultHKT, Schema, ExtractTablesWithRelations<Schema>>;
/** Anything that runs queries: the database or a transaction inside it. */
export type Executor = Database | Transaction;

/**
 * The raw driver beside the drizzle handle: LISTEN/NOTIFY and shutdown need it.
 * `pglite` is the embedded database (one process per data folder); `postgres` a real server.
 */
export type Driver = { kind: 'pglite'; client: PGlite } | { kind: 'postgres'; client: postgres.Sql };

export type DatabaseHandle = { db: Database; driver: Driver; close: () => Promise<void> };

export const MIGRATIONS_FOLDER = path.join(process.cwd(), 'db', 'migrations');

// Serialises migrations when several instances start together on one server.
const MIGRATION_LOCK_ID = 72_201_977;

export function dataDir(): string {
  return process.env.DATA_DIR ?? path.join(process.cwd(), '.data');
}

export async function openPglite(dataDirOrMemory?: string, options?: { loadDataDir?: Blob }): Promise<DatabaseHandle> {
  if (dataDirOrMemory) fs.mkdirSync(dataDirOrMemory, { recursive: true });
  const client = dataDirOrMemory
    ? new PGlite(dataDirOrMemory, { loadDataDir: options?.loadDataDir })
    : new PGlite({ loadDataDir: options?.loadDataDir });
  await client.waitReady;
  const db = drizzlePglite({ client, schema }) as unknown as Database;
  return { db, driver: { kind: 'pglite', client }, close: () => client.close() };
}

export function openPostgres(url: string, options?: { max?: number }): DatabaseHandle {
  const client = postgres(url, {
    max: options?.max ?? Number(process.env.DATABASE_POOL_SIZE ?? 10),
    onnotice: () => {},
    // Timestamps come back as Date objects either way; keep bigints as numbers where they fit.
    types: { bigint: postgres.BigInt },
  });
  const db = drizzlePostgres({ client, schema }) as unknown as Database;
  return { db, driver: { kind: 'postgres', client }, close: () => client.end({ timeout: 5 }) };
}

export async function runMigrations(handle: DatabaseHandle): Promise<void> {
  if (handle.driver.kind === 'pglite') {
    await migratePglite(handle.db as never, { migrationsFolder: MIGRATIONS_FOLDER });
    return;
  }
  // A dedicated single connection holds the advisory lock for the whole migration.
  const lockClient = postgres(connectionString(handle.driver.client), { max: 1, onnotice: () => {} });
  try {
    await lockClient`select pg_advisory_lock(${MIGRATION_LOCK_ID})`;
    await migratePostgres(drizzlePostgres({ client: lockClient }), { migrationsFolder: MIGRATIONS_FOLDER });
    await lockClient`select pg_advisory_unlock(${MIGRATION_LOCK_ID})`;
  } finally {
    await lockClient.end({ timeout: 5 });
  }
}

function connectionString(client: postgres.Sql): string {
  const o = client.options;
  const user = encodeURIComponent(o.user);
  const pass = o.pass ? `:${encodeURIComponent(String(o.pass))}` : '';
  return `postgres://${user}${pass}@${o.host[0]}:${o.port[0]}/${o.database}`;
}

/** Rows of a raw `db.execute(sql)` whatever the driver (postgres-js answers an array, PGlite `{ rows }`). */
export async function queryRows<T>(executor: Executor, query: ReturnType<typeof sql>): Promise<T[]> {
  const result = (await executor.execute(query)) as unknown;
  return (Array.isArray(result) ? result : (result as { rows: T[] }).rows) as T[];
}
