import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openPglite, queryRows, runMigrations } from '@/db/client';
import { maintainEmbedded } from '@/lib/server/embedded-maintenance';

// An embedded database of its own, whatever TEST_DATABASE_URL says: the pass is for PGlite, where
// nothing else would ever ANALYZE or VACUUM (a PostgreSQL server has autovacuum).
let handle: DatabaseHandle | undefined;
beforeAll(async () => {
  handle = await openPglite();
  await runMigrations(handle);
});
afterAll(async () => {
  await handle?.close();
});
const db = () => {
  if (!handle) throw new Error('the embedded database is opened in beforeAll');
  return handle.db;
};

type TableStats = { analyzed: boolean; vacuumed: boolean; dead: number; estimate: number };

async function statsOf(table: string): Promise<TableStats> {
  // Counters reach the statistics views at most once a second unless flushed.
  await db().execute(sql`select pg_stat_force_next_flush()`);
  const [row] = await queryRows<TableStats>(
    db(),
    sql`select s.last_analyze is not null as analyzed, s.last_vacuum is not null as vacuumed,
        s.n_dead_tup::int as dead, c.reltuples::int as estimate
      from pg_stat_user_tables s join pg_class c on c.oid = s.relid where s.relname = ${table}`,
  );
  if (!row) throw new Error(`no statistics for ${table}`);
  return row;
}

async function maintainFlushed() {
  await db().execute(sql`select pg_stat_force_next_flush()`);
  return maintainEmbedded(db());
}

describe('the embedded database', () => {
  it('analyzes a table once a tenth of it changed, vacuums it once a fifth is dead, then rests', async () => {
    await db().execute(
      sql`insert into rate_limit_hits (bucket) select 'maintenance-' || g from generate_series(1, 500) g`,
    );
    expect(await statsOf('rate_limit_hits')).toMatchObject({ analyzed: false, estimate: -1 });

    const first = await maintainFlushed();
    expect(first).toContainEqual({ table: 'rate_limit_hits', vacuumed: false });
    expect(await statsOf('rate_limit_hits')).toMatchObject({ analyzed: true, vacuumed: false, estimate: 500 });

    // Nothing changed since: nothing to do for it.
    expect((await maintainFlushed()).map((t) => t.table)).not.toContain('rate_limit_hits');

    await db().execute(sql`delete from rate_limit_hits where bucket like 'maintenance-%'`);
    expect((await statsOf('rate_limit_hits')).dead).toBe(500);
    const third = await maintainFlushed();
    expect(third).toContainEqual({ table: 'rate_limit_hits', vacuumed: true });
    expect(await statsOf('rate_limit_hits')).toMatchObject({ vacuumed: true, dead: 0, estimate: 0 });
  });

  it('runs with a page cache of 32 MB, not PGlite’s 128 MB, in memory that never shrinks', async () => {
    const [row] = await queryRows<{ shared_buffers: string }>(db(), sql`show shared_buffers`);
    expect(row?.shared_buffers).toBe('32MB');
  });

  it('leaves a few changes alone, as autovacuum would', async () => {
    await db().execute(sql`insert into rate_limit_hits (bucket) select 'few-' || g from generate_series(1, 20) g`);
    expect((await maintainFlushed()).map((t) => t.table)).not.toContain('rate_limit_hits');
  });
});
