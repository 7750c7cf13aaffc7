import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openPglite, openPostgres, queryRows, runMigrations } from '@/db';
import { type ExtraMigration, migrationsWith } from '@/db/migration-folder';
import { testDatabaseUrl, withDatabase } from './database';
import { until } from './poll';

/**
 * db/migrator.ts: an online migration (first line `-- online`) runs outside a transaction, after the
 * migrations before it are committed, and a try that stopped part-way is taken up again.
 */
type Migration = ExtraMigration;

/** A folder of these migrations alone. */
const folderOf = (migrations: Migration[]) => migrationsWith(migrations, { from: null });

const TABLE: Migration = {
  tag: '0000_table',
  text: 'CREATE TABLE "notes" ("id" serial PRIMARY KEY, "body" text NOT NULL);--> statement-breakpoint\nINSERT INTO "notes" ("body") SELECT \'note \' || g FROM generate_series(1, 1000) g;',
};
const ONLINE_INDEX: Migration = {
  tag: '0001_online_index',
  text: '-- online: built without stopping writes\nCREATE EXTENSION IF NOT EXISTS pg_trgm;--> statement-breakpoint\nCREATE INDEX CONCURRENTLY IF NOT EXISTS "notes_body_idx" ON "notes" ("body");',
};
const COLUMN: Migration = {
  tag: '0002_column',
  text: 'ALTER TABLE "notes" ADD COLUMN "seen" boolean DEFAULT false NOT NULL;',
};

async function indexState(db: DatabaseHandle['db'], name: string): Promise<'valid' | 'invalid' | 'absent'> {
  const [row] = await queryRows<{ valid: boolean }>(
    db,
    sql`select i.indisvalid as valid from pg_index i join pg_class c on c.oid = i.indexrelid where c.relname = ${name}`,
  );
  return row ? (row.valid ? 'valid' : 'invalid') : 'absent';
}

async function applied(db: DatabaseHandle['db']): Promise<number> {
  const [row] = await queryRows<{ n: number }>(db, sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
  return Number(row?.n);
}

describe('online migrations on the embedded database', () => {
  it('build a concurrent index between two migrations run in transactions, and record all three', async () => {
    const handle = await openPglite();
    try {
      await runMigrations(handle, folderOf([TABLE, ONLINE_INDEX, COLUMN]));
      expect(await indexState(handle.db, 'notes_body_idx')).toBe('valid');
      expect(await applied(handle.db)).toBe(3);
      // Run again: nothing is pending, nothing fails.
      await runMigrations(handle, folderOf([TABLE, ONLINE_INDEX, COLUMN]));
      expect(await applied(handle.db)).toBe(3);
    } finally {
      await handle.close();
    }
  });
});

const base = testDatabaseUrl();

describe.skipIf(!base)('online migrations on PostgreSQL', () => {
  const name = `simgate_online_${process.pid}`;
  let admin: postgres.Sql;
  beforeAll(() => {
    admin = postgres(withDatabase(base as URL, 'postgres'), { max: 1, onnotice: () => {} });
  });
  beforeEach(async () => {
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.unsafe(`create database "${name}"`);
  });
  afterAll(async () => {
    await admin.unsafe(`drop database if exists "${name}" with (force)`);
    await admin.end();
  });

  it('take up a try that left an invalid index: it is dropped and built again, valid', async () => {
    const handle = openPostgres(withDatabase(base as URL, name), { max: 2 });
    try {
      await runMigrations(handle, folderOf([TABLE]));
      // What a concurrent build that failed part-way leaves: the index, marked invalid, and the
      // migration not recorded.
      await handle.db.execute(sql`create index "notes_body_idx" on "notes" ("body")`);
      await handle.db.execute(
        sql`update pg_index set indisvalid = false where indexrelid = 'notes_body_idx'::regclass`,
      );
      expect(await indexState(handle.db, 'notes_body_idx')).toBe('invalid');

      await runMigrations(handle, folderOf([TABLE, ONLINE_INDEX, COLUMN]));
      expect(await indexState(handle.db, 'notes_body_idx')).toBe('valid');
      expect(await applied(handle.db)).toBe(3);
    } finally {
      await handle.close();
    }
  });

  it('run once when two instances start together: the one waiting holds no snapshot the build waits for', async () => {
    const folder = folderOf([TABLE, ONLINE_INDEX, COLUMN]);
    const handles = [0, 1].map(() => openPostgres(withDatabase(base as URL, name), { max: 1 }));
    try {
      // A waiting instance that sat in a statement would hold a snapshot, which CREATE INDEX
      // CONCURRENTLY waits for while its instance holds the lock the other waits for: "deadlock detected".
      await Promise.all(handles.map((handle) => runMigrations(handle, folder)));
      expect(await indexState(handles[0]!.db, 'notes_body_idx')).toBe('valid');
      expect(await applied(handles[0]!.db)).toBe(3);
    } finally {
      for (const handle of handles) await handle.close();
    }
  });

  it('does not hold writes to the table while the index builds', async () => {
    const handle = openPostgres(withDatabase(base as URL, name), { max: 2 });
    const writer = postgres(withDatabase(base as URL, name), { max: 1, onnotice: () => {} });
    try {
      await runMigrations(handle, folderOf([TABLE]));
      // A transaction that wrote the table and stays open: a plain CREATE INDEX would wait for it
      // while holding every later write up; a concurrent build waits for it without doing so.
      const open = writer.begin(async (tx) => {
        await tx`insert into notes (body) values ('held')`;
        await until(() => indexBuildWaits(admin, name), { timeoutMs: 20_000 });
        // Writes from elsewhere go through while the build waits.
        const other = postgres(withDatabase(base as URL, name), { max: 1, onnotice: () => {} });
        try {
          // Under a second of waiting for a lock: a plain CREATE INDEX would hold this up until the
          // migration's own lock_timeout (MIGRATION_LOCK_TIMEOUT_MS, 2 s) gave up.
          await other`set lock_timeout = '1s'`;
          await other`insert into notes (body) values ('during the build')`;
        } finally {
          await other.end();
        }
      });
      await Promise.all([runMigrations(handle, folderOf([TABLE, ONLINE_INDEX, COLUMN])), open]);
      expect(await indexState(handle.db, 'notes_body_idx')).toBe('valid');
      const [count] = await queryRows<{ n: number }>(
        handle.db,
        sql`select count(*)::int as n from notes where body in ('held', 'during the build')`,
      );
      expect(Number(count?.n)).toBe(2);
    } finally {
      await writer.end();
      await handle.close();
    }
  });
});

async function indexBuildWaits(admin: postgres.Sql, database: string): Promise<boolean> {
  const rows = await admin`select 1 from pg_stat_activity where datname = ${database}
    and wait_event_type = 'Lock' and query ilike '%notes_body_idx%'`;
  return rows.length > 0;
}
