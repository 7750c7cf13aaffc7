import { randomBytes, randomUUID } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { sql } from 'drizzle-orm';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import {
  type DatabaseHandle,
  type Executor,
  MIGRATIONS_FOLDER,
  openPglite,
  openPostgres,
  queryRows,
  runMigrations,
} from '@/db';
import * as schema from '@/db/schema';
import { journal } from '@/db/schema-version';
import { testDatabaseUrl } from './database';

/**
 * Each migration runs on a database that the schema before it filled: every table holds a row
 * (written by a generic filler from information_schema: foreign keys point at rows of the tables
 * they reference, a CHECK's listed values are used), and no row is lost by the migration.
 */

const serverUrl = testDatabaseUrl();
const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-migration-data-'));
const name = `simgate_migdata_${randomBytes(4).toString('hex')}`;

afterAll(async () => {
  fs.rmSync(folder, { recursive: true, force: true });
  if (serverUrl) {
    const admin = postgres(serverUrl.toString(), { max: 1, onnotice: () => {} });
    await admin.unsafe(`drop database if exists ${name} with (force)`);
    await admin.end();
  }
});

async function openEmpty(): Promise<DatabaseHandle> {
  if (!serverUrl) return openPglite();
  const admin = postgres(serverUrl.toString(), { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  await admin.end();
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return openPostgres(url.toString(), { max: 1 });
}

type Column = {
  table_name: string;
  column_name: string;
  data_type: string;
  udt_name: string;
  is_nullable: 'YES' | 'NO';
  column_default: string | null;
  is_generated: string;
  is_identity: string;
};
type ForeignKey = { table: string; ref_table: string; cols: string[]; ref_cols: string[] };

async function tableNames(executor: Executor): Promise<string[]> {
  const rows = await queryRows<{ table_name: string }>(
    executor,
    sql`select table_name from information_schema.tables where table_schema = 'public' and table_type = 'BASE TABLE' order by table_name`,
  );
  return rows.map((row) => row.table_name);
}

async function rowCounts(executor: Executor): Promise<Record<string, number>> {
  const counts: Record<string, number> = {};
  for (const table of await tableNames(executor)) {
    const [row] = await queryRows<{ n: number }>(
      executor,
      sql`select count(*)::int as n from ${sql.identifier(table)}`,
    );
    counts[table] = Number(row?.n);
  }
  return counts;
}

/** The values the code writes to its text columns with a fixed set (drizzle's `enum`), by "table.column". */
const ENUMS = new Map<string, string>();
for (const value of Object.values(schema)) {
  if (!(value instanceof PgTable)) continue;
  const config = getTableConfig(value);
  for (const column of config.columns) {
    const first = (column as { enumValues?: string[] }).enumValues?.[0];
    if (first) ENUMS.set(`${config.name}.${column.name}`, first);
  }
}

const quote = (value: string) => `'${value.replaceAll("'", "''")}'`;

/** A literal for a column of `type`, `hint` a value its CHECK lists. */
function literal(column: Column, hint: string | undefined): string {
  const type = column.udt_name;
  if (column.data_type === 'ARRAY') return hint === undefined ? `'{}'::${type}` : `array[${quote(hint)}]::${type}`;
  if (hint !== undefined) return `${quote(hint)}::${type}`;
  if (/phone|number|^from$|^to$|counterpart|recipient/.test(column.column_name) && type === 'text') {
    return `'+1415555${String(Math.floor(Math.random() * 9000) + 1000)}'`;
  }
  switch (type) {
    case 'uuid':
      return `${quote(randomUUID())}::uuid`;
    case 'int2':
    case 'int4':
    case 'int8':
    case 'numeric':
    case 'float4':
    case 'float8':
      return '1';
    case 'bool':
      return 'false';
    case 'timestamptz':
    case 'timestamp':
    case 'date':
      return 'now()';
    case 'jsonb':
    case 'json':
      return `'{}'::${type}`;
    case 'bytea':
      return `'\\x00'::bytea`;
    case 'inet':
      return `'127.0.0.1'::inet`;
    case 'interval':
      return `'1 hour'::interval`;
    default:
      return `${quote(`${column.column_name}-${randomBytes(3).toString('hex')}@example.test`)}::${type}`;
  }
}

/** One row more in every empty table; returns the tables it could not fill, with why. */
async function fillEveryTable(executor: Executor): Promise<Record<string, string>> {
  const columns = await queryRows<Column>(
    executor,
    sql`select table_name, column_name, data_type, udt_name, is_nullable, column_default, is_generated, is_identity
        from information_schema.columns where table_schema = 'public' order by table_name, ordinal_position`,
  );
  const foreignKeys = await queryRows<ForeignKey>(
    executor,
    sql`select cl.relname as table, rf.relname as ref_table,
          array(select a.attname::text from unnest(c.conkey) with ordinality k(n, i)
                join pg_attribute a on a.attrelid = c.conrelid and a.attnum = k.n order by k.i) as cols,
          array(select a.attname::text from unnest(c.confkey) with ordinality k(n, i)
                join pg_attribute a on a.attrelid = c.confrelid and a.attnum = k.n order by k.i) as ref_cols
        from pg_constraint c
        join pg_class cl on cl.oid = c.conrelid join pg_class rf on rf.oid = c.confrelid
        join pg_namespace ns on ns.oid = cl.relnamespace
        where c.contype = 'f' and ns.nspname = 'public'`,
  );
  const checks = await queryRows<{ table: string; def: string }>(
    executor,
    sql`select cl.relname as table, pg_get_constraintdef(c.oid) as def
        from pg_constraint c join pg_class cl on cl.oid = c.conrelid join pg_namespace ns on ns.oid = cl.relnamespace
        where c.contype = 'c' and ns.nspname = 'public'`,
  );
  const counts = await rowCounts(executor);
  let pending = Object.keys(counts).filter((table) => counts[table] === 0);
  const failures: Record<string, string> = {};
  // Tables whose references are filled go first; each pass fills what it can.
  for (let pass = 0; pending.length > 0 && pass < 10; pass++) {
    const next: string[] = [];
    for (const table of pending) {
      const values = new Map<string, string>();
      let waiting = false;
      for (const fk of foreignKeys.filter((key) => key.table === table)) {
        const [row] = await queryRows<Record<string, unknown>>(
          executor,
          sql`select ${sql.join(
            fk.ref_cols.map((col) => sql`${sql.identifier(col)}::text as ${sql.identifier(col)}`),
            sql`, `,
          )} from ${sql.identifier(fk.ref_table)} limit 1`,
        );
        if (row) {
          fk.cols.forEach((col, i) => {
            values.set(col, `${quote(String(row[fk.ref_cols[i]!]))}`);
          });
        } else if (fk.ref_table !== table) waiting = true;
      }
      if (waiting) {
        next.push(table);
        continue;
      }
      const defs = checks.filter((check) => check.table === table).map((check) => check.def);
      for (const column of columns.filter((c) => c.table_name === table)) {
        if (values.has(column.column_name) || column.is_generated === 'ALWAYS' || column.is_identity === 'YES')
          continue;
        const hint =
          ENUMS.get(`${table}.${column.column_name}`) ??
          defs
            .map((def) => new RegExp(`\\b${column.column_name}\\b[^']*?'([^']*)'`).exec(def)?.[1])
            .find((found) => found !== undefined);
        if (column.column_default !== null && hint === undefined) continue;
        if (column.is_nullable === 'YES' && hint === undefined && column.udt_name !== 'text') continue;
        values.set(column.column_name, literal(column, hint));
      }
      const names = [...values.keys()];
      try {
        await executor.execute(
          sql.raw(
            `insert into "${table}" (${names.map((n) => `"${n}"`).join(', ')}) values (${names
              .map((n) => {
                const column = columns.find((c) => c.table_name === table && c.column_name === n)!;
                const value = values.get(n)!;
                return value.startsWith("'") && !value.includes('::') ? `${value}::${column.udt_name}` : value;
              })
              .join(', ')})`,
          ),
        );
        delete failures[table];
      } catch (error) {
        failures[table] = (error as { cause?: Error }).cause?.message ?? (error as Error).message;
        next.push(table);
      }
    }
    if (next.length === pending.length && next.every((table) => pending.includes(table)) && pass > 2) break;
    pending = next;
  }
  return Object.fromEntries(pending.map((table) => [table, failures[table] ?? 'waits for a table it references']));
}

describe(`each migration on a database filled by the schema before it (${serverUrl ? 'PostgreSQL' : 'embedded'})`, () => {
  it('keeps every row of every table', async () => {
    const entries = journal(MIGRATIONS_FOLDER);
    const steps = path.join(folder, 'migrations');
    fs.cpSync(MIGRATIONS_FOLDER, steps, { recursive: true });
    const journalFile = path.join(steps, 'meta', '_journal.json');
    const full = JSON.parse(fs.readFileSync(journalFile, 'utf8'));
    const handle = await openEmpty();
    try {
      for (let upTo = 1; upTo <= entries.length; upTo++) {
        const tag = entries[upTo - 1]!.tag;
        const before = upTo > 1 ? await rowCounts(handle.db) : {};
        fs.writeFileSync(journalFile, JSON.stringify({ ...full, entries: full.entries.slice(0, upTo) }));
        await runMigrations(handle, steps);
        const after = await rowCounts(handle.db);
        for (const [table, count] of Object.entries(before)) {
          expect(after[table] ?? 0, `${tag}: rows of ${table}`).toBeGreaterThanOrEqual(count);
        }
        expect(await fillEveryTable(handle.db), `tables left empty after ${tag}`).toEqual({});
      }
      const final = await rowCounts(handle.db);
      expect(Object.keys(final).length).toBeGreaterThan(20);
      expect(Object.entries(final).filter(([, count]) => count === 0)).toEqual([]);
    } finally {
      await handle.close();
    }
  }, 300_000);
});
