import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from '@/db';
import { testDatabaseUrl } from './database';
import { withTestDatabase } from './setup-db';

const { db } = withTestDatabase();

// PGlite has no wire protocol to prepare over; on PostgreSQL every query drizzle sends is prepared
// once per connection (db/client.ts, preparingEveryQuery), so a repeated send is one round trip.
describe.skipIf(!testDatabaseUrl())('queries on PostgreSQL', () => {
  it('are prepared statements, parsed once per connection and reused', async () => {
    const marker = `prepared_${Date.now()}`;
    const counts = await db().transaction(async (tx) => {
      for (let i = 0; i < 3; i++) await queryRows(tx, sql`select ${i}::int as i, ${sql.raw(`'${marker}'`)} as m`);
      await queryRows(tx, sql`select ${sql.raw(`'${marker}'`)} as m, ${1}::int as i, ${'inner'}::text as t`);
      // Inside a savepoint (drizzle's nested transaction) too.
      await tx.transaction(async (inner) => {
        await queryRows(inner, sql`select ${sql.raw(`'${marker}'`)} as m, ${2}::int as j`);
      });
      return queryRows<{ statement: string }>(
        tx,
        sql`select statement from pg_prepared_statements where statement like ${`%'${marker}'%`} and statement not like '%pg_prepared_statements%'`,
      );
    });
    // Three calls of the first query share one statement; the other two are one each.
    expect(counts).toHaveLength(3);
  });
});
