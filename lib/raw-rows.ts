import { getTableColumns, type SQL, sql } from 'drizzle-orm';
import type { PgTable } from 'drizzle-orm/pg-core';

/**
 * A table's columns by name (`"id", "account_id", …`, each `qualifier.`-prefixed when given), for a
 * raw statement's `returning` or select list. Never `*`: a prepared statement whose result is `*`
 * changes shape when a migration adds a column, and PostgreSQL then refuses it ("cached plan must
 * not change result type") on every connection of an instance that still runs the old code. Named,
 * the result stays what this code reads, so a release may add a nullable column under old instances.
 * The list is the table's drizzle definition, the one place its columns are written.
 */
export function columnsOf(table: PgTable, qualifier?: string): SQL {
  const prefix = qualifier === undefined ? sql`` : sql`${sql.identifier(qualifier)}.`;
  return sql.join(
    Object.values(getTableColumns(table)).map((column) => sql`${prefix}${sql.identifier(column.name)}`),
    sql`, `,
  );
}

/** A row of `table` from a raw statement (its columns listed by `columnsOf`), as drizzle would have mapped it. */
export function rowOf<T extends PgTable>(table: T, raw: Record<string, unknown>): T['$inferSelect'] {
  const row: Record<string, unknown> = {};
  for (const [key, column] of Object.entries(getTableColumns(table))) {
    const value = raw[column.name];
    row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
  }
  return row as T['$inferSelect'];
}
