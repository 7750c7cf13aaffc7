import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from '@/db';
import { openPostgres, runMigrations } from '@/db/client';
import { migrationsWith } from '@/db/migration-folder';
import { GLOBAL_TABLES } from '@/db/tenancy';
import { distributeTables } from '@/lib/ops/distribute';
import { citusMode, citusWorkers, createCitusTemplate, dropDatabase, testDatabaseUrl, withDatabase } from './database';
import { withTestDatabase } from './setup-db';

const { db } = withTestDatabase();

describe('npm run ops -- distribute', () => {
  it.skipIf(citusMode())('refuses a database without the Citus extension, changing nothing', async () => {
    await expect(distributeTables(db())).rejects.toThrow(/no Citus extension/);
  });

  // TEST_CITUS=1: the harness distributed the template; each test database is a copy of it.
  it.runIf(citusMode())(
    'leaves the instance tables as reference tables, every account table distributed and colocated, and the keys back',
    async () => {
      const tables = await queryRows<{ name: string; method: string; colocation: number }>(
        db(),
        sql`select logicalrelid::regclass::text as name, partmethod::text as method, colocationid as colocation
          from pg_dist_partition order by 1`,
      );
      const reference = tables.filter((table) => table.method === 'n').map((table) => table.name);
      expect(reference.sort()).toEqual(Object.keys(GLOBAL_TABLES).sort());
      const distributed = tables.filter((table) => table.method === 'h');
      expect(distributed.map((table) => table.name)).toContain('messages');
      expect(new Set(distributed.map((table) => table.colocation)).size).toBe(1);
      const [keys] = await queryRows<{ count: number }>(
        db(),
        sql`select count(*)::int as count from pg_constraint c join pg_class r on r.oid = c.conrelid
          where c.contype = 'f' and r.relname = 'messages'`,
      );
      expect(keys?.count).toBeGreaterThan(0);
      // A second run finds nothing to do.
      const again = await distributeTables(db());
      expect(again).toMatchObject({ referenced: [], distributed: [], foreignKeys: 0 });
      expect(again.already).toHaveLength(tables.length);
    },
    120_000,
  );
});

describe.runIf(citusMode())('a migration on a distributed database', () => {
  it('runs through the coordinator: a column, and an index built and one dropped online, reach every shard', async () => {
    const url = testDatabaseUrl() as URL;
    const workers = await citusWorkers(url);
    const name = `simgate_mig_${randomBytes(4).toString('hex')}`;
    // This release's migrations, then two more, made here, applied after distributing. The second is an
    // online migration (db/migrator.ts): an index built and another dropped CONCURRENTLY, outside a
    // transaction, as migration 0053 does.
    const later = migrationsWith([
      { tag: '9998_citus_later', text: 'ALTER TABLE "messages" ADD COLUMN "citus_later" text;' },
      {
        tag: '9999_citus_online',
        text: [
          '-- online',
          'CREATE INDEX CONCURRENTLY IF NOT EXISTS "messages_citus_later_idx" ON "messages" ("account_id", "citus_later");--> statement-breakpoint',
          'DROP INDEX CONCURRENTLY IF EXISTS "messages_phone_handed_idx";',
        ].join('\n'),
      },
    ]);
    await createCitusTemplate(url, workers, name);
    const handle = openPostgres(withDatabase(url, name), { max: 1 });
    try {
      await runMigrations(handle);
      await distributeTables(handle.db);
      await runMigrations(handle, later);
      // Through the coordinator, on every shard of messages: the new column is written and read back.
      const [account] = await queryRows<{ id: string }>(
        handle.db,
        sql`insert into accounts (email) values (${`${name}@example.test`}) returning id`,
      );
      await handle.db.execute(sql`update messages set citus_later = 'x' where account_id = ${account?.id}::uuid`);
      // How many of messages' shards have (1) or lack (0) their copy of an index.
      const shardsWhere = async (index: string, has: 0 | 1) => {
        const [row] = await queryRows<{ count: number }>(
          handle.db,
          sql`select count(*)::int as count from run_command_on_shards('messages',
            ${`select count(*) from pg_indexes where indexname like '${index}%%' and tablename = '%s'`})
            where result = ${String(has)}`,
        );
        return row?.count;
      };
      const [all] = await queryRows<{ count: number }>(
        handle.db,
        sql`select count(*)::int as count from pg_dist_shard where logicalrelid = 'messages'::regclass`,
      );
      expect(all?.count).toBeGreaterThan(1);
      expect(await shardsWhere('messages_citus_later_idx', 1)).toBe(all?.count);
      expect(await shardsWhere('messages_phone_handed_idx', 0)).toBe(all?.count);
      const again = await distributeTables(handle.db);
      expect(again).toMatchObject({ referenced: [], distributed: [], foreignKeys: 0 });
    } finally {
      await handle.close();
      fs.rmSync(later, { recursive: true, force: true });
      for (const node of [...workers, url]) await dropDatabase(node, name, true);
    }
  }, 180_000);
});
