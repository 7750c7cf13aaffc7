import { sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import { GLOBAL_TABLES } from '@/db/tenancy';
import { DomainError } from '@/lib/errors';
import { withTransaction } from '@/lib/transactions';

/** The account table every other one is colocated with: the biggest, created first. */
export const COLOCATION_ANCHOR = 'messages';

export type DistributeReport = {
  /** Tables made reference tables now (the instance's own, db/tenancy.ts). */
  referenced: string[];
  /** Account tables distributed by `account_id` now, colocated with COLOCATION_ANCHOR. */
  distributed: string[];
  /** Foreign keys dropped before and added again after. */
  foreignKeys: number;
  /** Tables already reference or distributed tables, left as they are. */
  already: string[];
};

type ForeignKey = { table: string; name: string; definition: string };

/**
 * Spreads a migrated database over a Citus cluster (`npm run ops -- distribute`, on the coordinator
 * after `db:migrate`): the instance's own tables (db/tenancy.ts GLOBAL_TABLES) become reference tables,
 * copied to every node, and every account table is distributed by `account_id`, colocated with
 * `messages`, so that one account's rows of every table sit on one node and a statement with a fixed
 * `account_id` runs on one shard.
 *
 * Citus checks foreign keys as it distributes each table (a key between a distributed table and one not
 * yet distributed is refused), so the keys touching a table still to distribute are dropped first and
 * added again, as they were, once every table is done; all of it in one transaction. Idempotent: tables
 * already reference or distributed are left alone, and a second run changes nothing.
 */
export async function distributeTables(executor: Executor): Promise<DistributeReport> {
  const [citus] = await queryRows<{ version: string | null }>(
    executor,
    sql`select (select extversion from pg_extension where extname = 'citus') as version`,
  );
  if (!citus?.version) {
    throw new DomainError(
      'VALIDATION_ERROR',
      'the database has no Citus extension: run this on a Citus coordinator (create extension citus) after db:migrate',
    );
  }
  return withTransaction(executor, async (tx) => {
    const tables = await queryRows<{ name: string; has_account_id: boolean; kind: string | null }>(
      tx,
      sql`select c.relname as name,
          exists (select 1 from pg_attribute a
            where a.attrelid = c.oid and a.attname = 'account_id' and not a.attisdropped) as has_account_id,
          (select p.partmethod::text from pg_dist_partition p where p.logicalrelid = c.oid) as kind
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind in ('r', 'p') and not c.relispartition
        order by c.relname`,
    );
    const already = tables.filter((table) => table.kind !== null).map((table) => table.name);
    const pending = tables.filter((table) => table.kind === null);
    const toReference = pending.filter((table) => Object.hasOwn(GLOBAL_TABLES, table.name)).map((table) => table.name);
    const toDistribute = pending
      .filter((table) => !Object.hasOwn(GLOBAL_TABLES, table.name) && table.has_account_id)
      .map((table) => table.name)
      .sort((a, b) => Number(b === COLOCATION_ANCHOR) - Number(a === COLOCATION_ANCHOR) || a.localeCompare(b));
    const strays = pending.filter((table) => !Object.hasOwn(GLOBAL_TABLES, table.name) && !table.has_account_id);
    if (strays.length > 0) {
      throw new DomainError(
        'VALIDATION_ERROR',
        `neither an account table (no account_id) nor listed in db/tenancy.ts: ${strays.map((t) => t.name).join(', ')}`,
      );
    }
    const touched = [...toReference, ...toDistribute];
    if (touched.length === 0) return { referenced: [], distributed: [], foreignKeys: 0, already };

    const keys = await queryRows<ForeignKey>(
      tx,
      sql`select c.conrelid::regclass::text as "table", c.conname as name,
          pg_get_constraintdef(c.oid) as definition
        from pg_constraint c
        join pg_class r on r.oid = c.conrelid join pg_namespace n on n.oid = r.relnamespace
        join pg_class f on f.oid = c.confrelid
        where c.contype = 'f' and n.nspname = 'public'
          and (r.relname = any(${`{${touched.join(',')}}`}::text[])
            or f.relname = any(${`{${touched.join(',')}}`}::text[]))
        order by 1, 2`,
    );
    for (const key of keys) {
      await tx.execute(sql.raw(`alter table ${key.table} drop constraint ${quoteIdent(key.name)}`));
    }
    // Sequential: Citus then creates the shards over one connection per node, which the foreign keys
    // added later in this transaction need to see.
    await tx.execute(sql`set local citus.multi_shard_modify_mode to 'sequential'`);
    for (const table of toReference) {
      await tx.execute(sql`select create_reference_table(${table}::regclass)`);
    }
    for (const table of toDistribute) {
      const colocate = table === COLOCATION_ANCHOR ? 'default' : COLOCATION_ANCHOR;
      await tx.execute(
        sql`select create_distributed_table(${table}::regclass, 'account_id', colocate_with => ${colocate})`,
      );
    }
    for (const key of keys) {
      await tx.execute(sql.raw(`alter table ${key.table} add constraint ${quoteIdent(key.name)} ${key.definition}`));
    }
    return { referenced: toReference, distributed: toDistribute, foreignKeys: keys.length, already };
  });
}

function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}
