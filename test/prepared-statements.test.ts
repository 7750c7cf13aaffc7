import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { openPostgres, queryRows } from '@/db';
import { testDatabaseUrl } from './database';
import { withTestDatabase } from './setup-db';

const { db, handle } = withTestDatabase();

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

describe.skipIf(!testDatabaseUrl())('a statement prepared before a migration changed its result', () => {
  it('runs again, alone and in a transaction, instead of failing "cached plan must not change result type"', async () => {
    const url = testDatabaseUrl() as URL;
    url.pathname = `/${handle().name}`;
    // One connection, so the second call meets the statement the first one prepared.
    const own = openPostgres(url.toString(), { max: 1 });
    try {
      await own.db.execute(sql`create table stale_plans (id int primary key)`);
      await own.db.execute(sql`insert into stale_plans values (1)`);
      const alone = () => queryRows<Record<string, unknown>>(own.db, sql`select * from stale_plans where id = ${1}`);
      const inTransaction = () =>
        own.db.transaction((tx) =>
          queryRows<Record<string, unknown>>(tx, sql`select * from stale_plans where id >= ${1} order by id`),
        );
      expect(await alone()).toEqual([{ id: 1 }]);
      expect(await inTransaction()).toEqual([{ id: 1 }]);
      // What a newer release's migration does while this instance serves.
      await db().execute(sql`alter table stale_plans add column label text`);
      expect(await inTransaction()).toEqual([{ id: 1, label: null }]);
      expect(await alone()).toEqual([{ id: 1, label: null }]);
    } finally {
      await own.close();
    }
  });
});
