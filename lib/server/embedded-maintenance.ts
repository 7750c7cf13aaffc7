import { sql } from 'drizzle-orm';
import { type Database, getDatabase, queryRows } from '@/db';
import { log } from '@/lib/log';
import { startPeriodic } from '@/lib/runtime/periodic';

/** How often the embedded database looks for tables due for ANALYZE or VACUUM. */
export const EMBEDDED_MAINTENANCE_INTERVAL_MS = 60_000;

export type MaintainedTable = { table: string; vacuumed: boolean };

/**
 * What autovacuum does on a PostgreSQL server, which the embedded database (PGlite, one backend)
 * has not: ANALYZE a table once a tenth of it has changed since the last one, VACUUM it once a fifth
 * of it is dead rows or new rows not yet vacuumed (autovacuum's default thresholds and scale
 * factors). Without statistics the planner guesses, and a send's request_id check read every
 * message of the account through the wrong index; without VACUUM, updated rows (phones on every
 * heartbeat, messages on every report) leave dead versions that nothing reclaims. Runs on the server's
 * thread like every embedded query, one table at a time; answers what it did.
 */
export async function maintainEmbedded(db: Database): Promise<MaintainedTable[]> {
  const due = await queryRows<{ table: string; vacuum: boolean }>(
    db,
    sql`select * from (
        select s.relname as "table",
          s.n_dead_tup > 50 + 0.2 * greatest(c.reltuples, 0)
            or s.n_ins_since_vacuum > 1000 + 0.2 * greatest(c.reltuples, 0) as vacuum,
          s.n_mod_since_analyze > 50 + 0.1 * greatest(c.reltuples, 0) as "analyze"
        from pg_stat_user_tables s join pg_class c on c.oid = s.relid
        where s.schemaname = 'public'
      ) due
      where vacuum or "analyze"
      order by due."table"`,
  );
  const done: MaintainedTable[] = [];
  for (const { table, vacuum } of due) {
    // The name comes from the catalogue; quoted as an identifier all the same.
    const name = `"${table.replaceAll('"', '""')}"`;
    await db.execute(sql.raw(vacuum ? `vacuum (analyze) ${name}` : `analyze ${name}`));
    done.push({ table, vacuumed: vacuum });
  }
  return done;
}

/**
 * Planner statistics for the messages table now, as autovacuum (or `maintainEmbedded`) would within a
 * minute of the rows arriving: the benchmark cannot wait that long (app/api/bench/analyze).
 */
export async function analyzeMessages(): Promise<void> {
  const { db } = await getDatabase();
  await db.execute(sql`analyze messages`);
}

/** The periodic pass of `maintainEmbedded`, on the embedded database only (a server has autovacuum). */
export async function startEmbeddedMaintenance(): Promise<() => Promise<void>> {
  const { driver } = await getDatabase();
  if (driver.kind !== 'pglite') return async () => {};
  return startPeriodic({
    name: 'embedded database maintenance',
    intervalMs: EMBEDDED_MAINTENANCE_INTERVAL_MS,
    run: async (db) => {
      const started = performance.now();
      const done = await maintainEmbedded(db);
      if (done.length > 0) {
        log.info(
          { tables: done, ms: Math.round(performance.now() - started) },
          `embedded database maintenance: ${done.map((t) => `${t.vacuumed ? 'vacuum+analyze' : 'analyze'} ${t.table}`).join(', ')}`,
        );
      }
      // Tables, not rows: logged above in its own words.
      return 0;
    },
  });
}
