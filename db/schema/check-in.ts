import { sql } from 'drizzle-orm';
import { type AnyPgColumn, check } from 'drizzle-orm/pg-core';

/**
 * The CHECK that keeps a text column inside a closed set, built from the same constant the
 * column's `enum` (and so the code's types) comes from: the database refuses what TypeScript
 * would not accept, and a new value needs only a new migration, never a second list.
 */
export function checkIn(name: string, column: AnyPgColumn, values: readonly string[]) {
  return check(name, sql`${column} in (${sql.raw(literals(values))})`);
}

/** The same for a text[] column: every element must be one of `values`. */
export function checkAllIn(name: string, column: AnyPgColumn, values: readonly string[]) {
  return check(name, sql`${column} <@ array[${sql.raw(literals(values))}]::text[]`);
}

function literals(values: readonly string[]): string {
  return values.map((value) => `'${value.replaceAll("'", "''")}'`).join(', ');
}
