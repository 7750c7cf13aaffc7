import { sql } from 'drizzle-orm';
import { type MigrationMeta, readMigrationFiles } from 'drizzle-orm/migrator';
import { type Database, type Executor, queryRows } from './client';

/**
 * Applies the pending migrations of `migrationsFolder` as drizzle's migrator does, with one
 * difference. Drizzle's table `drizzle.__drizzle_migrations` keeps each applied migration's journal
 * `when` and hash, and a migration is pending when it is newer than the newest applied one. Drizzle
 * runs all of them in one transaction; so does this, except for an online migration.
 *
 * An **online** migration is one whose first line is ONLINE_MARK. It runs outside any transaction, one
 * statement at a time, so that it can build an index `CONCURRENTLY` or `VALIDATE` a constraint added
 * `NOT VALID`, while sends go on writing the table. Its statements are idempotent (`IF NOT EXISTS`), and
 * a try that stopped part-way is taken up again. A concurrent index build that failed leaves an invalid
 * index, and that index is dropped before the statement builds it again. The migrations before an
 * online one are committed first, and it is recorded once all its statements have run.
 *
 * `test/migration-rules.test.ts` says which statements a migration may hold writes up with.
 */
export const ONLINE_MARK = '-- online';

export function isOnline(migration: Pick<MigrationMeta, 'sql'>): boolean {
  return (migration.sql[0] ?? '').trimStart().startsWith(ONLINE_MARK);
}

export async function applyMigrations(db: Database, migrationsFolder: string): Promise<void> {
  const migrations = readMigrationFiles({ migrationsFolder });
  await db.execute(sql`create schema if not exists drizzle`);
  await db.execute(sql`create table if not exists drizzle.__drizzle_migrations (
    id serial primary key,
    hash text not null,
    created_at bigint
  )`);
  const [last] = await queryRows<{ created_at: string | number }>(
    db,
    sql`select created_at from drizzle.__drizzle_migrations order by created_at desc limit 1`,
  );
  const newest = last ? Number(last.created_at) : undefined;
  const pending = migrations.filter((migration) => newest === undefined || newest < migration.folderMillis);

  let inTransaction: MigrationMeta[] = [];
  const commit = async () => {
    if (inTransaction.length === 0) return;
    const batch = inTransaction;
    inTransaction = [];
    await db.transaction(async (tx) => {
      for (const migration of batch) {
        for (const statement of migration.sql) await tx.execute(sql.raw(statement));
        await record(tx, migration);
      }
    });
  };
  for (const migration of pending) {
    if (!isOnline(migration)) {
      inTransaction.push(migration);
      continue;
    }
    await commit();
    for (const statement of migration.sql) {
      await dropInvalidIndexBuiltBy(db, statement);
      await db.execute(sql.raw(statement));
    }
    await record(db, migration);
  }
  await commit();
}

function record(executor: Executor, migration: MigrationMeta): Promise<unknown> {
  return executor.execute(
    sql`insert into drizzle.__drizzle_migrations ("hash", "created_at") values (${migration.hash}, ${migration.folderMillis})`,
  );
}

const CONCURRENT_INDEX = /\bcreate\s+(?:unique\s+)?index\s+concurrently\s+if\s+not\s+exists\s+"?([A-Za-z0-9_]+)"?/i;

/** Before `create index concurrently if not exists "name"`: drops the invalid index an earlier try left. */
async function dropInvalidIndexBuiltBy(db: Database, statement: string): Promise<void> {
  const name = CONCURRENT_INDEX.exec(statement)?.[1];
  if (!name) return;
  const [invalid] = await queryRows<{ invalid: boolean }>(
    db,
    sql`select true as invalid from pg_index i join pg_class c on c.oid = i.indexrelid
        where c.relname = ${name} and c.relnamespace = current_schema()::regnamespace and not i.indisvalid`,
  );
  if (invalid) await db.execute(sql.raw(`drop index concurrently if exists "${name}"`));
}
