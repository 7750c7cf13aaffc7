// The plans of the account's read paths (lists, search, statistics, the ledger) over a table with a
// busy account among others, ANALYZE'd, as the ten-million-message bench measures them
// (bench/big-table.ts): each statement the code runs is EXPLAINed and must go through its index, so
// that a change to a query or an index cannot silently turn an index scan into a sequential one.
import { type SQLWrapper, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '@/db';
import { ledgerPageQuery } from '@/lib/credits/history';
import { creditsUsedStatement, dailyCountsStatement, statsWindow } from '@/lib/messages/daily-counts';
import { listMessages, type MessageListQuery, messagePageQuery } from '@/lib/messages/list';
import { encodeCursor } from '@/lib/pagination';
import { createTestAccount, type TestAccount } from './fixtures';
import { withTestDatabase } from './setup-db';

const { db } = withTestDatabase();

/** Messages of the busy account; the others share as many again. */
const BUSY_MESSAGES = 20_000;
const OTHER_ACCOUNTS = 8;
const DAY = 86_400_000;
const NOW = Date.now();

let busy: TestAccount;
let quiet: TestAccount;
let others: TestAccount[];

/** `count` messages of `account` over the last `days` days, newest last, with their charges. */
async function seedMessages(account: TestAccount, count: number, days: number) {
  const start = new Date(NOW - days * DAY).toISOString();
  const step = (days * DAY) / count;
  await db().execute(sql`
    with m as (
      insert into messages (account_id, phone_id, group_id, direction, "from", "to", content, status, segments,
        encoding, created_at, updated_at)
      select ${account.accountId}::uuid, ${account.phoneId}::uuid, ${account.defaultGroupId}::int,
        case when i % 7 = 0 then 'inbound' else 'outbound' end,
        case when i % 7 = 0 then '+4477009' || lpad((i % 100000)::text, 5, '0') else ${account.phone} end,
        case when i % 7 = 0 then ${account.phone} else '+4477009' || lpad((i % 100000)::text, 5, '0') end,
        (array['Your code is 1234', 'Invoice ' || i || ' is due', 'Table for two at Luigi''s pizza',
          'Your parcel is out for delivery'])[1 + i % 4] || case when i % 2000 = 7 then ' to Zanzibar' else '' end,
        case when i % 7 = 0 then 'received' when i % 13 = 0 then 'failed' else 'delivered' end,
        1, 'GSM-7', ts, ts
      from (select i, ${start}::timestamptz + (i::float8 * ${step}::float8) * interval '1 millisecond' as ts
            from generate_series(1, ${count}) i) g
      returning id, account_id, group_id, direction, created_at
    )
    insert into credit_ledger (account_id, group_id, kind, amount, balance_after, message_id, created_at)
    select account_id, group_id, 'message_charge', -1, 1000, id, created_at from m where direction = 'outbound'
  `);
}

beforeAll(async () => {
  busy = await createTestAccount(db());
  quiet = await createTestAccount(db());
  others = [];
  for (let i = 0; i < OTHER_ACCOUNTS; i++) others.push(await createTestAccount(db()));
  await seedMessages(busy, BUSY_MESSAGES, 365);
  await seedMessages(quiet, 200, 365);
  for (const other of others) await seedMessages(other, BUSY_MESSAGES / OTHER_ACCOUNTS, 365);
  // A handful of messages still waiting, as a busy account has at any time.
  await db().execute(sql`
    update messages set status = 'queued' where id in (
      select id from messages where account_id = ${busy.accountId}::uuid and direction = 'outbound'
      order by created_at desc limit 5)`);
  await db().execute(sql`
    update messages set priority = 'high' where id in (
      select id from messages where account_id = ${busy.accountId}::uuid and direction = 'outbound'
      order by created_at desc offset 100 limit 3)`);
  // As autovacuum leaves a table: statistics, and pages marked all-visible for index-only scans.
  await db().execute(sql`vacuum analyze messages`);
  await db().execute(sql`vacuum analyze credit_ledger`);
}, 120_000);

async function planOf(statement: SQLWrapper): Promise<string> {
  const rows = await queryRows<{ 'QUERY PLAN': string }>(db(), sql`explain ${statement}`);
  return rows.map((row) => row['QUERY PLAN']).join('\n');
}

async function listPlan(account: TestAccount, query: Partial<MessageListQuery>): Promise<string> {
  const { statement } = await messagePageQuery(db(), account.accountId, { limit: 20, ...query });
  if (!statement) throw new Error('no statement');
  return planOf(statement);
}

/** The cursor of the busy account's `offset`-th newest message. */
async function deepCursor(offset: number): Promise<string> {
  const [row] = await queryRows<{ created_at: string; id: string }>(
    db(),
    sql`select created_at, id from messages where account_id = ${busy.accountId}::uuid
        order by created_at desc, id desc offset ${offset} limit 1`,
  );
  return encodeCursor({ createdAt: new Date(row!.created_at), id: row!.id });
}

describe('the message list', () => {
  it('reads the first and a deep page of a busy account newest first through messages_account_created_idx', async () => {
    for (const plan of [await listPlan(busy, {}), await listPlan(busy, { cursor: await deepCursor(1_000) })]) {
      expect(plan).toContain('messages_account_created_idx');
      expect(plan).not.toContain('Seq Scan');
      expect(plan).not.toContain('Sort');
    }
  });

  it('filters by a common state, a direction, a phone and a date range along the same index', async () => {
    const plans = [
      await listPlan(busy, { status: 'delivered' }),
      await listPlan(busy, { direction: 'inbound' }),
      await listPlan(busy, { phone: busy.phone }),
      await listPlan(busy, {
        created_after: new Date(NOW - 60 * DAY),
        created_before: new Date(NOW - 30 * DAY),
      }),
    ];
    for (const plan of plans) {
      expect(plan).toContain('messages_account_created_idx');
      expect(plan).not.toContain('Seq Scan');
    }
  });

  it('finds the few high-priority messages of a busy account through messages_account_high_idx', async () => {
    const plan = await listPlan(busy, { priority: 'high' });
    expect(plan).toContain('messages_account_high_idx');
    expect(plan).not.toContain('Seq Scan');
  });
});

describe('search', () => {
  it('plans each page for its own values, never with the plan cache’s generic plan', async () => {
    const mode = await db().transaction(async (tx) => {
      await listMessages(tx, busy.accountId, { limit: 20, q: 'pizza' });
      const [row] = await queryRows<{ mode: string; jit: string }>(
        tx,
        sql`select current_setting('plan_cache_mode') as mode, current_setting('jit') as jit`,
      );
      return row;
    });
    expect(mode).toEqual({ mode: 'force_custom_plan', jit: 'off' });
  });

  it('finds a rare number prefix in a busy account through the counterpart number indexes', async () => {
    const plan = await listPlan(busy, { q: '+4477009150' });
    expect(plan).toContain('messages_account_to_idx');
    expect(plan).toContain('messages_account_from_idx');
    expect(plan).not.toContain('Seq Scan');
  });

  it('finds a word without reading the whole table', async () => {
    expect(await listPlan(busy, { q: 'pizza' })).not.toContain('Seq Scan');
    expect(await listPlan(quiet, { q: 'pizza' })).not.toContain('Seq Scan');
  });

  it('finds a rare word of a busy account through messages_content_fts_idx, under the account', async () => {
    for (const q of ['zanzibar', 'Zanzibar -pizza', '"to zanzibar"']) {
      const plan = await listPlan(busy, { q });
      expect(plan).toMatch(/Bitmap Index Scan on messages_content_fts_idx.*\n\s+Index Cond: \(\(account_id = /);
      expect(plan).not.toContain('Seq Scan');
    }
  });

  it('finds a rare substring through messages_content_substring_idx, under the account', async () => {
    const plan = await listPlan(busy, { q: 'anzib', match: 'substring' });
    expect(plan).toMatch(/Bitmap Index Scan on messages_content_substring_idx.*\n\s+Index Cond: \(\(account_id = /);
    expect(plan).not.toContain('Seq Scan');
  });

  it("reads a number in a quiet account's texts under the account, not every account's matches", async () => {
    // Every account's texts hold "1234": the substring index without the account answered all of them.
    // Under the account: its substring index with the account, or (200 messages) its list's own index,
    // filtered; the planner takes either, by their costs.
    const plan = await listPlan(quiet, { q: '1234' });
    expect(plan).toMatch(/Index Cond: \(\(?account_id = /);
    expect(plan).not.toMatch(/Index Cond: \(content ~~\* /);
    expect(plan).not.toContain('Seq Scan');
  });
});

describe('the ledger', () => {
  it('reads the first and a deep page through credit_ledger_account_created_idx', async () => {
    const [row] = await queryRows<{ created_at: string; id: number }>(
      db(),
      sql`select created_at, id from credit_ledger where account_id = ${busy.accountId}::uuid
          order by created_at desc, id desc offset 1000 limit 1`,
    );
    const cursor = encodeCursor({ createdAt: new Date(row!.created_at), id: row!.id });
    for (const query of [{ limit: 20 }, { limit: 20, cursor }]) {
      const { statement } = await ledgerPageQuery(db(), busy.accountId, query);
      const plan = await planOf(statement);
      expect(plan).toContain('credit_ledger_account_created_idx');
      expect(plan).not.toContain('Seq Scan');
    }
  });
});

describe('the overview statistics', () => {
  it('count the live days of a busy account from the indexes alone, reading no row', async () => {
    const { start, liveStart, today, end } = statsWindow(new Date(NOW));
    expect(await planOf(dailyCountsStatement(busy.accountId, [{ from: liveStart, to: end }]))).toContain(
      'Index Only Scan using messages_account_created_idx',
    );
    for (const ranges of [
      [{ from: today, to: end }],
      [
        { from: start, to: new Date(start.getTime() + DAY) },
        { from: liveStart, to: today },
      ],
    ]) {
      expect(await planOf(creditsUsedStatement(busy.accountId, ranges))).toContain(
        'Index Only Scan using credit_ledger_account_created_idx',
      );
    }
  });

  it('count a day missing from the rollups apart, each range through the same index', async () => {
    const { start, liveStart, end } = statsWindow(new Date(NOW));
    const ranges = [
      { from: start, to: new Date(start.getTime() + DAY) },
      { from: liveStart, to: end },
    ];
    const plan = await planOf(dailyCountsStatement(busy.accountId, ranges));
    expect(plan.match(/Index Only Scan using messages_account_created_idx/g)).toHaveLength(2);
    expect(plan).not.toContain('Seq Scan');
  });
});
