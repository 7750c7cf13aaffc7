import { type SQL, sql } from 'drizzle-orm';

/**
 * A timestamp column moved `ms` into the past, for an UPDATE that ages rows. Written with immutable
 * functions only: Citus refuses `column - interval` (a STABLE function of a column) in an UPDATE of a
 * distributed or reference table, and the tests run there too (`TEST_CITUS=1`).
 */
export function earlier(column: SQL | { getSQL(): SQL }, ms: number): SQL {
  return sql`to_timestamp(date_part('epoch', ${column} - timestamptz 'epoch') - ${ms / 1000}::float8)`;
}
