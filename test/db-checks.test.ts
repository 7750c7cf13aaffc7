import { is, sql } from 'drizzle-orm';
import { getTableConfig, type PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { describe, expect, it } from 'vitest';
import { queryRows } from '@/db';
import * as schema from '@/db/schema';
import { sqlState } from '@/lib/transactions';
import { withTestDatabase } from './setup-db';

const { db } = withTestDatabase();

const exported: [string, unknown][] = Object.entries(schema);
const tables = exported.map(([, value]) => value).filter((value): value is PgTable => is(value, PgTable));
const enumColumns = tables.flatMap((table) => {
  const { name, columns } = getTableConfig(table);
  return columns.filter((column) => column.enumValues?.length).map((column) => ({ table: name, columns, column }));
});
const enumConstants = exported.filter(
  (entry): entry is [string, readonly string[]] =>
    Array.isArray(entry[1]) && entry[1].length > 0 && entry[1].every((value) => typeof value === 'string'),
);

type CheckConstraint = { table: string; column: string; name: string; definition: string };

function checksOn(checks: CheckConstraint[], table: string, column: string): CheckConstraint[] {
  return checks.filter((check) => check.table === table && check.column === column);
}

/** A literal any NOT NULL column without a default accepts, so that only `target`'s CHECK can refuse the row. */
function literalFor(column: PgColumn): string {
  if (column.enumValues?.length) return `'${column.enumValues[0]}'`;
  const type = column.getSQLType();
  if (type.endsWith('[]')) return `'{}'`;
  if (type === 'uuid') return 'gen_random_uuid()';
  if (type.startsWith('timestamp')) return 'now()';
  if (['integer', 'smallint', 'bigint'].includes(type)) return '0';
  if (type === 'boolean') return 'false';
  if (type === 'jsonb') return `'{}'::jsonb`;
  return `'x'`;
}

async function insertWith(table: string, columns: PgColumn[], target: PgColumn, value: string): Promise<unknown> {
  const filled = columns.filter((column) => column === target || (column.notNull && !column.hasDefault));
  const names = filled.map((column) => `"${column.name}"`).join(', ');
  const values = filled.map((column) => (column === target ? `'${value}'` : literalFor(column))).join(', ');
  try {
    await db().execute(sql.raw(`insert into "${table}" (${names}) values (${values})`));
    return undefined;
  } catch (error) {
    return error;
  }
}

async function checkConstraints(): Promise<CheckConstraint[]> {
  return queryRows<CheckConstraint>(
    db(),
    sql`
      select c.conrelid::regclass::text as table, a.attname as column, c.conname as name,
        pg_get_constraintdef(c.oid) as definition
      from pg_constraint c
      join pg_attribute a on a.attrelid = c.conrelid and a.attnum = any (c.conkey)
      where c.contype = 'c' and c.connamespace = 'public'::regnamespace
    `,
  );
}

describe('closed sets in the database', () => {
  it('every enum constant exported from db/schema is the enum of a column', () => {
    const used = new Set(enumColumns.map(({ column }) => column.enumValues));
    const loose = enumConstants.filter(([, values]) => !used.has(values as string[] | undefined)).map(([name]) => name);
    expect(loose).toEqual([]);
  });

  it('every enum column has a CHECK listing exactly its values', async () => {
    const checks = await checkConstraints();
    const missing = enumColumns
      .filter(({ table, column }) => {
        const definitions = checksOn(checks, table, column.name).map((check) => check.definition);
        return !definitions.some((definition) =>
          column.enumValues?.every((value) => definition.includes(`'${value}'`)),
        );
      })
      .map(({ table, column }) => `${table}.${column.name}`);
    expect(missing).toEqual([]);
  });

  it.each(enumColumns.map((entry) => [`${entry.table}.${entry.column.name}`, entry] as const))(
    '%s refuses a value outside its set with 23514',
    async (_, { table, columns, column }) => {
      const checks = checksOn(await checkConstraints(), table, column.name).map((check) => check.name);
      const error = await insertWith(table, columns, column, 'not-in-the-set');
      expect(sqlState(error)).toBe('23514');
      expect(checks.some((name) => String(errorText(error)).includes(name))).toBe(true);
    },
  );

  it('webhooks.events (a text[] of event names) refuses an element outside EVENT_TYPES with 23514', async () => {
    const table = getTableConfig(schema.webhooks);
    const eventsColumn = table.columns.find((column) => column.name === 'events')!;
    // A valid list passes the CHECK (the row then fails only on its made-up account, 23503).
    expect(sqlState(await insertWith('webhooks', table.columns, eventsColumn, '{message.sent}'))).not.toBe('23514');
    const error = await insertWith('webhooks', table.columns, eventsColumn, '{message.sent,not-an-event}');
    expect(sqlState(error)).toBe('23514');
    expect(errorText(error)).toContain('webhooks_events_check');
  });
});

/** The driver's message and constraint name along drizzle's `cause` chain. */
function errorText(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current && typeof current === 'object' && depth < 4; depth++) {
    const { message, constraint, constraint_name } = current as Record<string, unknown>;
    parts.push(String(message ?? ''), String(constraint ?? ''), String(constraint_name ?? ''));
    current = (current as { cause?: unknown }).cause;
  }
  return parts.join(' ');
}
