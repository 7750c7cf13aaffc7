import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from '@/db';
import { GLOBAL_TABLES, isAccountTable } from '@/db/tenancy';
import { withTestDatabase } from './setup-db';

/**
 * The schema is ready to be distributed by account (docs/adr/0011-keys-ready-to-shard.md): read from
 * the catalog of a migrated database, so that what hand-written migrations create is checked as
 * well as what drizzle generates.
 */

const { db } = withTestDatabase();

type Catalog = {
  tables: string[];
  /** Every column named account_id, and whether it is NOT NULL. */
  accountColumns: { table: string; notNull: boolean }[];
  primaryKeys: { table: string; name: string; columns: string[] }[];
  /** Unique indexes, those of PRIMARY KEY and UNIQUE constraints and partial ones included; an expression is null. */
  uniqueIndexes: { table: string; name: string; columns: (string | null)[] }[];
  foreignKeys: { table: string; name: string; columns: string[]; refTable: string; refColumns: string[] }[];
};

const ACCOUNT_ID = 'account_id';

/** What keeps the schema from being distributed by account_id, one line per table, index or key. */
function shardReadinessProblems(catalog: Catalog, global: Readonly<Record<string, string>>): string[] {
  const isAccount = (table: string) => !Object.hasOwn(global, table);
  const problems: string[] = [];
  for (const name of Object.keys(global)) {
    if (!catalog.tables.includes(name)) problems.push(`global table ${name} (db/tenancy.ts) does not exist`);
  }
  for (const table of catalog.tables.filter(isAccount)) {
    const column = catalog.accountColumns.find((c) => c.table === table);
    if (!column) problems.push(`table ${table} has no account_id: add it, or name it in GLOBAL_TABLES with a reason`);
    else if (!column.notNull) problems.push(`table ${table}: account_id may be null`);
    const pk = catalog.primaryKeys.find((k) => k.table === table);
    if (!pk) problems.push(`table ${table} has no primary key`);
    else if (!pk.columns.includes(ACCOUNT_ID)) problems.push(`primary key ${pk.name} (${pk.columns}) lacks account_id`);
  }
  for (const index of catalog.uniqueIndexes.filter((i) => isAccount(i.table))) {
    if (!index.columns.includes(ACCOUNT_ID)) {
      problems.push(
        `unique index ${index.name} on ${index.table} (${index.columns.map((c) => c ?? '<expr>')}) lacks account_id`,
      );
    }
  }
  for (const fk of catalog.foreignKeys) {
    const from = isAccount(fk.table);
    const to = isAccount(fk.refTable);
    if (!from && to) {
      problems.push(`foreign key ${fk.name}: global table ${fk.table} references account table ${fk.refTable}`);
    } else if (from && to) {
      const at = fk.columns.indexOf(ACCOUNT_ID);
      if (at < 0 || fk.refColumns[at] !== ACCOUNT_ID) {
        problems.push(
          `foreign key ${fk.name}: ${fk.table}(${fk.columns}) -> ${fk.refTable}(${fk.refColumns}) does not pair account_id with account_id`,
        );
      }
    }
  }
  return problems;
}

async function readCatalog(): Promise<Catalog> {
  const tables = await queryRows<{ table_name: string }>(
    db(),
    sql`select table_name from information_schema.tables
        where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`,
  );
  const accountColumns = await queryRows<{ table_name: string; is_nullable: 'YES' | 'NO' }>(
    db(),
    sql`select c.table_name, c.is_nullable from information_schema.columns c
        join information_schema.tables t on t.table_schema = c.table_schema and t.table_name = c.table_name
        where c.table_schema = 'public' and t.table_type = 'BASE TABLE' and c.column_name = ${ACCOUNT_ID}`,
  );
  const constraints = await queryRows<{
    name: string;
    type: 'p' | 'f';
    table_name: string;
    ref_table: string | null;
    columns: string[];
    ref_columns: string[];
  }>(
    db(),
    sql`select c.conname as name, c.contype as type, cl.relname as table_name, rf.relname as ref_table,
          array(select a.attname::text from unnest(c.conkey) with ordinality k(n, i)
                join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.n order by k.i) as columns,
          array(select a.attname::text from unnest(c.confkey) with ordinality k(n, i)
                join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.n order by k.i) as ref_columns
        from pg_constraint c
        join pg_class cl on cl.oid = c.conrelid
        join pg_namespace ns on ns.oid = cl.relnamespace
        left join pg_class rf on rf.oid = c.confrelid
        where ns.nspname = 'public' and c.contype in ('p', 'f')`,
  );
  // Key columns only (not INCLUDE ones); attnum 0 is an expression.
  const indexes = await queryRows<{ name: string; table_name: string; columns: (string | null)[] }>(
    db(),
    sql`select ic.relname as name, tc.relname as table_name,
          array(select a.attname::text from unnest(i.indkey::int2[]) with ordinality k(n, o)
                left join pg_attribute a on a.attrelid = i.indrelid and a.attnum = k.n
                where k.o <= i.indnkeyatts order by k.o) as columns
        from pg_index i
        join pg_class ic on ic.oid = i.indexrelid
        join pg_class tc on tc.oid = i.indrelid
        join pg_namespace ns on ns.oid = tc.relnamespace
        where ns.nspname = 'public' and i.indisunique`,
  );
  return {
    tables: tables.map((t) => t.table_name),
    accountColumns: accountColumns.map((c) => ({ table: c.table_name, notNull: c.is_nullable === 'NO' })),
    primaryKeys: constraints
      .filter((c) => c.type === 'p')
      .map((c) => ({ table: c.table_name, name: c.name, columns: c.columns })),
    uniqueIndexes: indexes.map((i) => ({ table: i.table_name, name: i.name, columns: i.columns })),
    foreignKeys: constraints
      .filter((c) => c.type === 'f')
      .map((c) => ({
        table: c.table_name,
        name: c.name,
        columns: c.columns,
        refTable: c.ref_table ?? '',
        refColumns: c.ref_columns,
      })),
  };
}

describe('the schema is ready to shard by account', () => {
  it('every account table keys, indexes uniquely and references its account tables by account_id', async () => {
    const catalog = await readCatalog();
    expect(catalog.tables.length).toBeGreaterThan(20);
    // The catalog was read: the messages table's key is there to be judged.
    expect(catalog.primaryKeys.find((k) => k.table === 'messages')?.columns).toContain('id');
    expect(shardReadinessProblems(catalog, GLOBAL_TABLES)).toEqual([]);
  });

  it('every global table says why it is not an account table', () => {
    for (const [table, reason] of Object.entries(GLOBAL_TABLES)) {
      expect(isAccountTable(table)).toBe(false);
      expect(reason.length, table).toBeGreaterThan(20);
    }
    expect(isAccountTable('messages')).toBe(true);
  });

  it('the rule names each table, index and key that breaks it', () => {
    const bad: Catalog = {
      tables: ['accounts', 'notes', 'tags', 'codes'],
      accountColumns: [
        { table: 'accounts', notNull: true },
        { table: 'tags', notNull: false },
      ],
      primaryKeys: [
        { table: 'notes', name: 'notes_pkey', columns: ['id'] },
        { table: 'tags', name: 'tags_pkey', columns: ['id', 'account_id'] },
      ],
      uniqueIndexes: [
        { table: 'notes', name: 'notes_pkey', columns: ['id'] },
        { table: 'tags', name: 'tags_pkey', columns: ['id', 'account_id'] },
        { table: 'tags', name: 'tags_lower_name_key', columns: [null] },
      ],
      foreignKeys: [
        { table: 'notes', name: 'notes_tag_fk', columns: ['tag_id'], refTable: 'tags', refColumns: ['id'] },
        {
          table: 'notes',
          name: 'notes_crossed_fk',
          columns: ['account_id', 'tag_id'],
          refTable: 'tags',
          refColumns: ['id', 'account_id'],
        },
        { table: 'codes', name: 'codes_tag_fk', columns: ['tag_id'], refTable: 'tags', refColumns: ['id'] },
        { table: 'tags', name: 'tags_account_fk', columns: ['account_id'], refTable: 'accounts', refColumns: ['id'] },
      ],
    };
    const global = { accounts: 'the directory of accounts', codes: 'codes before an account', gone: 'a dropped table' };
    expect(shardReadinessProblems(bad, global)).toEqual([
      'global table gone (db/tenancy.ts) does not exist',
      'table notes has no account_id: add it, or name it in GLOBAL_TABLES with a reason',
      'primary key notes_pkey (id) lacks account_id',
      'table tags: account_id may be null',
      'unique index notes_pkey on notes (id) lacks account_id',
      'unique index tags_lower_name_key on tags (<expr>) lacks account_id',
      'foreign key notes_tag_fk: notes(tag_id) -> tags(id) does not pair account_id with account_id',
      'foreign key notes_crossed_fk: notes(account_id,tag_id) -> tags(id,account_id) does not pair account_id with account_id',
      'foreign key codes_tag_fk: global table codes references account table tags',
    ]);
  });
});
