import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from '@/db';
import { GLOBAL_TABLES } from '@/db/tenancy';
import { distributeTables } from '@/lib/ops/distribute';
import { citusMode } from './database';
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
