import { describe, expect, it } from 'vitest';
import * as schema from '@/db/schema';
import { accountTablesOf, checkQueryLog, tableReferences, unfilteredTables } from './query-tenancy';

const ACCOUNT = new Set(['messages', 'phones', 'webhook_deliveries', 'events']);

describe('the query-log check', () => {
  it('reads the account tables from the schema: global ones and tables without account_id are not', () => {
    const tables = accountTablesOf(schema);
    expect(tables.has('messages')).toBe(true);
    expect(tables.has('phones')).toBe(true);
    expect(tables.has('accounts')).toBe(false);
    expect(tables.has('api_keys')).toBe(false);
  });

  it('finds tables after FROM, JOIN, UPDATE, INSERT INTO and DELETE FROM, quoted, aliased or schema-qualified', () => {
    const tables = (statement: string) => tableReferences(statement).map((reference) => reference.table);
    expect(tables('select "id" from "messages" left join "phones" on "phones"."id" = "messages"."phone_id"')).toEqual([
      'messages',
      'phones',
    ]);
    expect(tables('update public.messages m set status = $1 where m.id = $2')).toEqual(['messages']);
    expect(tables('delete from "public"."events" where id = $1')).toEqual(['events']);
    expect(tables('insert into "messages" ("id", "account_id") values ($1, $2)')).toEqual(['messages']);
    expect(tables('select * from unnest($1::uuid[]) as u(id) join messages m on m.id = u.id')).toEqual(['messages']);
    expect(tables("select extract(epoch from now()) as s, 'from phones' as text")).toEqual([]);
  });

  it('flags a statement on an account table without account_id', () => {
    expect(unfilteredTables('update "messages" set "status" = $1 where "messages"."id" = $2', ACCOUNT)).toEqual([
      'messages',
    ]);
    // Naming the column is not filtering by it.
    expect(unfilteredTables('select "id", "account_id" from "phones" where "phones"."id" = $1', ACCOUNT)).toEqual([
      'phones',
    ]);
  });

  it('accepts account_id fixed to one value, joined to a fixed one, listed in an INSERT, or in the same subquery', () => {
    const clean = [
      'select "id" from "messages" where ("messages"."account_id" = $1 and "messages"."id" = $2)',
      'select id from messages m where m.account_id = $1::uuid and m.id = $2',
      "select id from messages m where m.account_id = '7d1c0c52-0000-4000-8000-000000000000'",
      'update phones set status = $1 where $2::uuid = account_id',
      'select "id" from "phones" where ("phones"."account_id" in ($1) and "phones"."device_id" in ($2))',
      'insert into account_queues as q (account_id, queued) select $1::uuid, 1 on conflict (account_id) do update set queued = q.queued + 1',
      'select d.id from webhook_deliveries d join events e on e.account_id = d.account_id and e.id = d.event_id where d.account_id = $1',
      'insert into "messages" ("id", "account_id", "to") values ($1, $2, $3) on conflict do nothing',
      'select count(*) from messages where id in (select message_id from events where account_id = $1) and account_id = $1',
      'select p.id from phones p where p.account_id = $1 and exists (select 1 from messages m where m.account_id = p.account_id)',
    ];
    for (const statement of clean) expect(unfilteredTables(statement, ACCOUNT), statement).toEqual([]);
  });

  it('refuses account_id compared with several values or none: each reaches every shard', () => {
    const spread = [
      'select id from messages m where m.account_id = any($1::uuid[])',
      'delete from phones where account_id in ($1, $2)',
      'update phones set status = $1 where account_id <> $2',
      'select m.id from messages m join phones p on p.account_id = m.account_id and p.id = m.phone_id',
      'select id from messages where account_id = (select account_id from phones where id = $1)',
    ];
    for (const statement of spread) expect(unfilteredTables(statement, ACCOUNT), statement).not.toEqual([]);
  });

  it('does not credit a subquery with the outer query’s unqualified account_id, nor the other way round', () => {
    expect(
      unfilteredTables(
        'select id, (select count(*) from phones p where p.group_id = g.id) from groups g where account_id = $1',
        ACCOUNT,
      ),
    ).toEqual(['phones']);
    expect(
      unfilteredTables(
        'update messages set status = $1 where id in (select id from messages where account_id = $2)',
        ACCOUNT,
      ),
    ).toEqual(['messages']);
  });

  it('honours the allow-list, and fails an entry nothing needed', () => {
    const statements = [
      {
        sql: 'update messages set status = $1 where send_at < now()',
        origin: 'task:message expiry sweep',
        driver: 'pglite',
      },
      { sql: 'select id from phones where id = $1', origin: 'request:getPhone', driver: 'pglite' },
      { sql: 'select id from phones where account_id = $1', origin: 'request:listPhones', driver: 'pglite' },
    ];
    const sweep = { origin: 'task:message expiry sweep', reason: 'expires every account’s messages' };
    const stale = { statement: /from retired_table/, reason: 'no longer sent' };
    const onlyPostgres = { origin: /^task:/, driver: 'postgres' as const, reason: 'not run on this driver' };
    const sometimes = { statement: /from mixed_batch/, sometimes: true, reason: 'only when a batch mixes accounts' };
    const report = checkQueryLog(statements, ACCOUNT, [sweep, stale, onlyPostgres, sometimes]);
    expect(report.offences).toEqual([{ ...statements[1], tables: ['phones'] }]);
    expect(report.allowed).toBe(1);
    // The PostgreSQL-only entry is not reported on a PGlite log, nor one sent only sometimes; the stale one is.
    expect(report.unused).toEqual([stale]);
  });
});
