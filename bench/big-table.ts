// Ten million messages (issue 38): seeds a PostgreSQL database `simgate_big` on BENCH_DATABASE_URL's
// server (default postgres://postgres@127.0.0.1:5432/) with BENCH_BIG_MESSAGES (10,000,000) messages
// over 1,000 accounts by generate_series, keeps it between runs (the table `bench_big_table` says it is
// complete; BENCH_BIG_RESEED=1 makes it again), then measures through the production server: list
// pages (first and deep, each dashboard filter), search by words (the default), by substring and by
// number prefix, the overview's statistics (after the rollup sweep has counted the days the seed or the
// time since added) and the credits ledger for a large and a small account, and sends with and without
// the retention sweep purging content older than 90 days. `npx tsx bench/big-table.ts` runs it alone.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { migrationStatements, migrationsWith, withoutComments } from '../db/migration-folder';
import { ONLINE_MARK } from '../db/migrator';
import { activateBenchPhone } from './activate';
import { percentile, recipient } from './load';
import { benchServerEnv, type Server, startServer } from './server';

const TOTAL = Number(process.env.BENCH_BIG_MESSAGES ?? 10_000_000);
const CHUNK = 500_000;
const ACCOUNTS = 1_000;
/** Share of all messages in the large account, and the small one's. */
const LARGE_SHARE = 0.15;
const SMALL_SHARE = 0.0002;
const SAMPLES = Number(process.env.BENCH_BIG_SAMPLES ?? 60);
const SLOW_SAMPLES = 5;
const SEND_SECONDS = Number(process.env.BENCH_BIG_SEND_S ?? 20);
const SEND_CONCURRENCY = 4;
const LARGE_PHONES = ['+14155550101', '+14155550102', '+14155550103'];
const SMALL_PHONE = '+14155550201';

/** Search: the default (words, and number prefixes); `match=substring` is measured beside it, unchecked. */
const TARGETS = { list_p50_ms: 50, list_p99_ms: 200, search_p50_ms: 50, search_p99_ms: 100, stats_p99_ms: 50 };

export type Timing = { p50_ms: number; p99_ms: number; n: number; timeouts?: number };
export type BigTableResults = {
  messages: number;
  history_rows: number;
  ledger_rows: number;
  large_account_messages: number;
  small_account_messages: number;
  seed_s: number | null;
  list_p50_ms: number;
  list_p99_ms: number;
  search_p50_ms: number;
  search_p99_ms: number;
  substring_search_p50_ms: number;
  substring_search_p99_ms: number;
  stats_p99_ms: number;
  ledger_p99_ms: number;
  send_p99_ms_during_purge: number;
  send_p99_ms_without_purge: number;
  send_p50_ms_during_purge: number;
  send_p50_ms_without_purge: number;
  purge: { rows: number; ms: number; rows_per_s: number };
  /** Sends while `npm run db:migrate` applies an online migration: migration 0050's index, built again. */
  migrate: { ms: number; sends: number; send_p50_ms: number; send_p99_ms: number; send_max_ms: number };
  /** The rollup sweep's pass before the measures: days counted, and its time. */
  rollup: { days: number; ms: number };
  sizes_mb: { messages: number; messages_indexes: number; history: number; ledger: number };
  queries: Record<string, Timing>;
};

/** The database's name: simgate_big unless BENCH_BIG_DB says (a smaller trial beside the big one). */
const DB_NAME = process.env.BENCH_BIG_DB ?? 'simgate_big';

function bigUrl(): string {
  const url = new URL(process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/');
  url.pathname = `/${DB_NAME}`;
  return url.toString();
}

function adminUrl(): string {
  const url = new URL(bigUrl());
  url.pathname = '/postgres';
  return url.toString();
}

type Seeded = {
  messages: number;
  large_key: string;
  small_key: string;
  large_account: string;
  small_account: string;
  seed_s: number | null;
};

async function readMarker(db: postgres.Sql): Promise<Seeded | undefined> {
  const [exists] = await db`select to_regclass('public.bench_big_table') is not null as ok`;
  if (!exists?.ok) return undefined;
  const [row] = await db<Seeded[]>`select messages::int as messages, large_key, small_key, large_account::text,
    small_account::text, seed_s from bench_big_table`;
  return row && row.messages === TOTAL ? row : undefined;
}

function serverEnv(): Record<string, string> {
  return {
    ...benchServerEnv(),
    DATABASE_URL: bigUrl(),
    APP_SECRET: 'bench-secret-bench-secret-bench-secret-0',
    DEV_INBOX: '1',
    APP_URL: 'http://127.0.0.1',
    ALLOWED_HOSTS: '127.0.0.1',
    // The sweep runs from its own process when the bench says so, never on the server's timer.
    RETENTION_SWEEP_INTERVAL_S: '86400',
    // Sends stay queued (no phone claims them), run after run: the account's queue cap is not measured here.
    ACCOUNT_MAX_QUEUED: '100000000',
  };
}

/** A fresh database, migrated by the server's first start, with the two accounts activated over HTTP. */
async function seed(): Promise<Seeded> {
  const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} });
  await admin.unsafe(`drop database if exists "${DB_NAME}" with (force)`);
  await admin.unsafe(`create database "${DB_NAME}"`);
  await admin.end();
  const started = performance.now();
  const server = await startServer(serverEnv());
  let large: Awaited<ReturnType<typeof activateBenchPhone>>;
  let small: Awaited<ReturnType<typeof activateBenchPhone>>;
  try {
    large = await activateBenchPhone(server.baseUrl, LARGE_PHONES[0]!, 'big-large@example.test');
    for (const phone of LARGE_PHONES.slice(1)) {
      await activateBenchPhone(server.baseUrl, phone, 'big-large@example.test');
    }
    small = await activateBenchPhone(server.baseUrl, SMALL_PHONE, 'big-small@example.test');
  } finally {
    await server.stop();
  }
  const db = postgres(bigUrl(), { max: 1, onnotice: () => {} });
  try {
    const [ids] = await db`select
      (select account_id::text from phones where phone = ${LARGE_PHONES[0]!}) as large,
      (select account_id::text from phones where phone = ${SMALL_PHONE}) as small`;
    const largeAccount = ids!.large as string;
    const smallAccount = ids!.small as string;
    await seedRows(db, largeAccount, smallAccount);
    const seedS = (performance.now() - started) / 1000;
    await db`create table bench_big_table (messages bigint not null, large_key text not null, small_key text not null,
      large_account uuid not null, small_account uuid not null, seed_s real, seeded_at timestamptz not null default now())`;
    await db`insert into bench_big_table (messages, large_key, small_key, large_account, small_account, seed_s)
      values (${TOTAL}, ${large.apiKey}, ${small.apiKey}, ${largeAccount}, ${smallAccount}, ${seedS})`;
    console.log(`seeded ${TOTAL.toLocaleString('en')} messages in ${seedS.toFixed(0)} s`);
    return {
      messages: TOTAL,
      large_key: large.apiKey,
      small_key: small.apiKey,
      large_account: largeAccount,
      small_account: smallAccount,
      seed_s: seedS,
    };
  } finally {
    await db.end();
  }
}

/** A counterpart number of contact `c` (a bigint expression): E.164 in five countries. */
const CONTACT_NUMBER = (c: string) => `case (${c}) % 5
  when 0 then '+1' || (201 + ((${c}) * 7) % 780)::text || lpad(((${c}) * 2654435761 % 10000000)::text, 7, '0')
  when 1 then '+447' || lpad(((${c}) * 2654435761 % 1000000000)::text, 9, '0')
  when 2 then '+4915' || lpad(((${c}) * 2654435761 % 1000000000)::text, 9, '0')
  when 3 then '+336' || lpad(((${c}) * 2654435761 % 100000000)::text, 8, '0')
  else '+919' || lpad(((${c}) * 2654435761 % 1000000000)::text, 9, '0') end`;

/** Message text with words (h: a random bigint expression); one in 10,000 mentions "Zanzibar". */
const CONTENT = (h: string, inbound: string) => `case when ${inbound} then (array[
    'Yes, see you then', 'STOP', 'Ok thanks!', 'Can I move my appointment to Friday?',
    'What time do you open on Sunday?', 'Received, thank you', 'Please call me back', 'Is my parcel on its way?'
  ])[1 + (${h}) % 8]
  else case (${h}) % 10
    when 0 then 'Your verification code is ' || lpad(((${h}) % 1000000)::text, 6, '0')
    when 1 then 'Hi, your order #' || ((${h}) % 100000)::text || ' has shipped and will arrive on ' || (array['Monday','Tuesday','Wednesday','Thursday','Friday'])[1 + (${h}) % 5]
    when 2 then 'Reminder: your appointment with Dr. ' || (array['Smith','Garcia','Müller','Rossi','Dubois','Khan'])[1 + (${h}) % 6] || ' is tomorrow at ' || (8 + (${h}) % 10)::text || ':00'
    when 3 then 'Invoice ' || ((${h}) % 90000 + 10000)::text || ' of ' || ((${h}) % 500 + 10)::text || ' EUR is due on the ' || (1 + (${h}) % 28)::text || 'th'
    when 4 then 'Your parcel is out for delivery today. Track it at https://t.example/' || to_hex(${h})
    when 5 then 'Thanks for your payment of ' || ((${h}) % 300 + 5)::text || ' USD. Reference ' || upper(to_hex((${h}) % 1000000))
    when 6 then 'Can we move the meeting to ' || (array['Monday','Tuesday','Wednesday','Thursday','Friday'])[1 + (${h}) % 5] || '? Let me know.'
    when 7 then 'Table for ' || (2 + (${h}) % 6)::text || ' confirmed at Luigi''s pizza tonight at ' || (18 + (${h}) % 4)::text || ':30'
    when 8 then 'Your subscription renews on ' || (1 + (${h}) % 28)::text || ' March. Reply STOP to opt out.'
    else 'Flash sale: ' || (10 + (${h}) % 50)::text || '% off all shoes this weekend only'
  end end || case when (${h}) % 10000 = 7 then ' (ticket for the Zanzibar trip)' else '' end`;

/** The migration of the substring index (catchUp builds it on an older seed). */
const SUBSTRING_INDEX_MIGRATION = '0054_content_substring_live.sql';

/** Indexes that the seed drops before writing the rows and builds after them. */
const BULK_BUILT_INDEXES = [
  'messages_content_substring_idx',
  'messages_content_fts_idx',
  'messages_account_to_idx',
  'credit_ledger_group_idx',
];

async function seedRows(db: postgres.Sql, largeAccount: string, smallAccount: string): Promise<void> {
  const step = async (label: string, statement: string) => {
    const started = performance.now();
    await db.unsafe(statement);
    console.log(`  ${label}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  };
  // Consistent by construction: the foreign keys' triggers are skipped while seeding.
  await db.unsafe(`set session_replication_role = replica; set maintenance_work_mem = '1GB'; set work_mem = '256MB'`);
  // Built after the rows, by one sort each, rather than row by row; from the migrations' own definitions,
  // so that the measured indexes are the ones a deployment has.
  const bulkBuilt = await db<{ name: string; definition: string }[]>`
    select indexname as name, indexdef as definition from pg_indexes
    where schemaname = current_schema() and indexname in ${db(BULK_BUILT_INDEXES)}`;
  if (bulkBuilt.length !== BULK_BUILT_INDEXES.length) throw new Error('the migrations lack an index the seed rebuilds');
  await step('drop bulk-built indexes', bulkBuilt.map((index) => `drop index "${index.name}";`).join('\n'));
  await step(
    'accounts and phones',
    `
    create table seed_acct (n int primary key, account_id uuid not null, group_id int, phones int not null);
    insert into accounts (email, created_at)
      select 'big-' || n || '@example.test', now() - interval '400 days' from generate_series(2, ${ACCOUNTS - 1}) n;
    insert into seed_acct (n, account_id, phones)
      select n, a.id, 1 + n % 3 from generate_series(2, ${ACCOUNTS - 1}) n join accounts a on a.email = 'big-' || n || '@example.test';
    insert into phone_groups (account_id, name, name_key, is_default, balance, created_at)
      select account_id, 'Default', 'default', true, 1000000, now() - interval '400 days' from seed_acct;
    insert into seed_acct (n, account_id, phones) values
      (0, '${largeAccount}', ${LARGE_PHONES.length}), (1, '${smallAccount}', 1);
    update seed_acct s set group_id = g.id from phone_groups g where g.account_id = s.account_id and g.is_default;
    insert into phones (account_id, group_id, phone, status, sim_verification, created_at)
      select s.account_id, s.group_id, '+1628' || lpad((s.n * 10 + k)::text, 7, '0'), 'online', 'verified',
        now() - interval '400 days'
      from seed_acct s, generate_series(0, s.phones - 1) k where s.n >= 2;
    create table seed_phone (n int, k int, phone_id uuid not null, phone text not null, primary key (n, k));
    insert into seed_phone
      select s.n, (row_number() over (partition by s.n order by p.phone) - 1)::int, p.id, p.phone
      from seed_acct s join phones p on p.account_id = s.account_id;
    analyze seed_acct; analyze seed_phone;
  `,
  );
  const yearMs = 365 * 86_400_000;
  const stepMs = yearMs / TOTAL;
  const [now] = await db`select now() as now`;
  const start = new Date((now!.now as Date).getTime() - yearMs).toISOString();
  // Which account a message belongs to: 15 % the large one, 0.02 % the small one, the rest skewed
  // (the busiest of the others gets ~3 % of the rest, the quietest ~0.05 %).
  const pickAccount = `case when u < ${LARGE_SHARE} then 0 when u < ${LARGE_SHARE + SMALL_SHARE} then 1
    else 2 + least(${ACCOUNTS - 3}, floor(${ACCOUNTS - 2} * power((u - ${LARGE_SHARE + SMALL_SHARE}) / ${1 - LARGE_SHARE - SMALL_SHARE}, 2)))::int end`;
  for (let lo = 1; lo <= TOTAL; lo += CHUNK) {
    const hi = Math.min(TOTAL, lo + CHUNK - 1);
    await step(
      `messages ${lo.toLocaleString('en')}–${hi.toLocaleString('en')} with history and ledger`,
      `
      with g as (
        select i, created_at, ${pickAccount} as n, d, s, h, (random() * 2000)::bigint as c
        from (
          select i, '${start}'::timestamptz + ((i - 1)::float8 * ${stepMs} + random() * ${stepMs}) * interval '1 millisecond' as created_at,
            random() as u, random() as d, random() as s, (random() * 1000000000)::bigint as h
          from generate_series(${lo}, ${hi}) i
        ) r
      ), rows as (
        select g.*, a.account_id, a.group_id, p.phone_id, p.phone as own,
          ${CONTACT_NUMBER('g.n::bigint * 100000 + g.c')} as contact,
          case when d < 0.15 then 'inbound' else 'outbound' end as direction
        from g join seed_acct a on a.n = g.n join seed_phone p on p.n = g.n and p.k = g.i % a.phones
      ), m as (
        insert into messages (id, account_id, phone_id, group_id, direction, "from", "to", content, status, segments,
          encoding, send_at, created_at, updated_at, error)
        select
          (lpad(to_hex((extract(epoch from created_at) * 1000)::bigint), 12, '0') || '7' || substr(md5(i::text), 1, 3)
            || '8' || substr(md5(i::text), 4, 15))::uuid,
          account_id, phone_id, case when direction = 'outbound' then group_id end, direction,
          case when direction = 'outbound' then own else contact end,
          case when direction = 'outbound' then contact else own end,
          content, status, case when length(content) > 160 then 2 else 1 end, 'GSM-7', created_at, created_at,
          case when status = 'queued' then created_at else created_at + interval '15 seconds' end,
          case when status = 'failed' then 'RESULT_ERROR_GENERIC_FAILURE' end
        from (
          select *, ${CONTENT('h', "direction = 'inbound'")} as content,
            case when direction = 'inbound' then 'received'
              when created_at > now() - interval '10 minutes' then 'queued'
              when s < 0.70 then 'delivered' when s < 0.85 then 'sent' when s < 0.93 then 'failed'
              when s < 0.97 then 'expired' else 'cancelled' end as status
          from rows
        ) x
        returning id, account_id, group_id, direction, status, created_at
      ), history as (
        insert into message_status_history (account_id, message_id, status, at)
        select m.account_id, m.id, h.status, m.created_at + h.after_ms * interval '1 millisecond'
        from m, unnest(
          case m.status
            when 'delivered' then array['queued', 'sent', 'delivered']
            when 'sent' then array['queued', 'sent']
            when 'failed' then array['queued', 'dispatched', 'failed']
            when 'expired' then array['queued', 'expired']
            when 'cancelled' then array['queued', 'cancelled']
            when 'received' then array['received']
            else array['queued'] end,
          array[0, 4000, 15000]) as h(status, after_ms)
        where h.status is not null
        returning 1
      )
      insert into credit_ledger (account_id, group_id, kind, amount, balance_after, message_id, created_at)
      select account_id, group_id, 'message_charge', -1, 900000, id, created_at from m where direction = 'outbound'
      union all
      select account_id, group_id, 'refund', 1, 900000, id, created_at + interval '15 seconds' from m
      where status in ('failed', 'expired', 'cancelled')
    `,
    );
  }
  for (const index of bulkBuilt) await step(`index ${index.name}`, index.definition);
  await step('drop seed tables', 'drop table seed_phone; drop table seed_acct');
  await db.unsafe('set session_replication_role = origin');
  for (const table of ['messages', 'message_status_history', 'credit_ledger']) {
    await step(`vacuum analyze ${table}`, `vacuum (analyze) ${table}`);
  }
}

/**
 * A database seeded by an older bench: the substring index of migration 0054, built here in one sort
 * (the server's start would build it CONCURRENTLY, for minutes, before it serves; its migration then
 * finds it, and the old index gone), and messages_account_to_idx as migrated, with text_pattern_ops (an
 * older seed built it without, so that a number prefix could not use it).
 */
async function catchUp(db: postgres.Sql): Promise<void> {
  const step = async (label: string, statement: string) => {
    const started = performance.now();
    await db.unsafe(statement);
    console.log(`  ${label}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  };
  await db.unsafe(`set maintenance_work_mem = '1GB'`);
  const [substring] = await db`select to_regclass('messages_content_substring_idx') is not null as ok`;
  if (!substring?.ok) {
    const root = path.resolve(import.meta.dirname, '..');
    const migration = fs.readFileSync(path.join(root, 'db', 'migrations', SUBSTRING_INDEX_MIGRATION), 'utf8');
    for (const statement of migrationStatements(migration)) {
      const text = withoutComments(statement).trim();
      const built = text.replace(' CONCURRENTLY', '');
      await step(`catch-up: ${built.slice(0, 60)}…`, built);
    }
  }
  const [to] = await db`select indexdef from pg_indexes where indexname = 'messages_account_to_idx'`;
  if (to && !String(to.indexdef).includes('text_pattern_ops')) {
    await step(
      'catch-up: index messages_account_to_idx with text_pattern_ops',
      `drop index messages_account_to_idx;
       create index messages_account_to_idx on messages using btree (account_id, "to" text_pattern_ops, created_at)
         where direction = 'outbound'`,
    );
  }
  await db.unsafe('reset maintenance_work_mem');
}

type Query = {
  name: string;
  account: 'large' | 'small';
  path: string;
  kind: 'list' | 'search' | 'substring' | 'stats' | 'ledger';
};

/** The cursor lib/pagination.ts gives out for the row (created_at, id). */
function cursorOf(createdAt: Date, id: string | number): string {
  return Buffer.from(JSON.stringify([createdAt.toISOString(), String(id)])).toString('base64url');
}

/** Every query the dashboard makes of a list, search, statistics and the ledger, first and deep pages. */
async function queriesFor(
  db: postgres.Sql,
  account: 'large' | 'small',
  accountId: string,
  phone: string,
): Promise<Query[]> {
  const monthAgo = new Date(Date.now() - 30 * 86_400_000).toISOString();
  const twoMonthsAgo = new Date(Date.now() - 60 * 86_400_000).toISOString();
  const listFilters: Array<[string, string, string]> = [
    ['all', '', 'true'],
    ['status=delivered', 'status=delivered', "status = 'delivered'"],
    ['status=failed', 'status=failed', "status = 'failed'"],
    ['status=queued', 'status=queued', "status = 'queued'"],
    ['direction=inbound', 'direction=inbound', "direction = 'inbound'"],
    ['priority=high', 'priority=high', "priority = 'high'"],
    ['phone', `phone=${encodeURIComponent(phone)}`, `phone_id = (select id from phones where phone = '${phone}')`],
    [
      'date range',
      `created_after=${twoMonthsAgo}&created_before=${monthAgo}`,
      `created_at >= '${twoMonthsAgo}' and created_at < '${monthAgo}'`,
    ],
  ];
  const queries: Query[] = [];
  for (const [name, params, where] of listFilters) {
    queries.push({ name: `list ${name}`, account, path: `/api/v1/messages?limit=20&${params}`, kind: 'list' });
    // A page 50 pages deep: the cursor of the 1,000th row the filter gives.
    const [deep] = await db.unsafe(
      `select created_at, id from messages where account_id = '${accountId}' and ${where}
       order by created_at desc, id desc offset 1000 limit 1`,
    );
    if (deep) {
      const cursor = cursorOf(deep.created_at as Date, deep.id as string);
      queries.push({
        name: `list ${name}, page 51`,
        account,
        path: `/api/v1/messages?limit=20&${params}&cursor=${cursor}`,
        kind: 'list',
      });
    }
  }
  // Words (the default): a common word, a rare one, two common words (which every "Luigi's pizza" row
  // holds), the same as a phrase (never adjacent there: the apostrophe's "s" is between them), a phrase
  // that a tenth of the rows hold, a common word without a rarer one, and a word nowhere.
  const words = [
    'invoice',
    'zanzibar',
    'Luigi pizza',
    '"Luigi pizza"',
    '"your order"',
    'appointment -Smith',
    'nomatchword',
  ];
  for (const q of words) {
    queries.push({
      name: q.startsWith('"') ? `search phrase ${q}` : `search "${q}"`,
      account,
      path: `/api/v1/messages?limit=20&q=${encodeURIComponent(q)}`,
      kind: 'search',
    });
  }
  // Substrings (match=substring): a fragment of a common word, of a rare one, and the two words above.
  for (const q of ['voic', 'anzib', 'Luigi pizza']) {
    queries.push({
      name: `search substring "${q}"`,
      account,
      path: `/api/v1/messages?limit=20&match=substring&q=${encodeURIComponent(q)}`,
      kind: 'substring',
    });
  }
  // A number prefix the account's counterparts start with, and one of a single contact.
  const [number] = await db.unsafe(
    `select "to" from messages where account_id = '${accountId}' and direction = 'outbound' order by created_at desc limit 1`,
  );
  const to = (number?.to as string | undefined) ?? '+447700900000';
  for (const prefix of [to.slice(0, 4), to.slice(0, 9)]) {
    queries.push({
      name: `search number ${prefix.length - 1} digits`,
      account,
      path: `/api/v1/messages?limit=20&q=${encodeURIComponent(prefix)}`,
      kind: 'search',
    });
  }
  queries.push({
    name: 'search "invoice", status=failed',
    account,
    path: '/api/v1/messages?limit=20&q=invoice&status=failed',
    kind: 'search',
  });
  queries.push({ name: 'stats', account, path: '/api/v1/stats/messages', kind: 'stats' });
  queries.push({ name: 'ledger', account, path: '/api/v1/credits/ledger?limit=20', kind: 'ledger' });
  queries.push({
    name: 'ledger kind=refund',
    account,
    path: '/api/v1/credits/ledger?limit=20&kind=refund',
    kind: 'ledger',
  });
  const [ledgerDeep] = await db.unsafe(
    `select created_at, id from credit_ledger where account_id = '${accountId}' order by created_at desc, id desc offset 1000 limit 1`,
  );
  if (ledgerDeep) {
    queries.push({
      name: 'ledger, page 51',
      account,
      path: `/api/v1/credits/ledger?limit=20&cursor=${cursorOf(ledgerDeep.created_at as Date, ledgerDeep.id as string)}`,
      kind: 'ledger',
    });
  }
  return queries;
}

/** Answers past a budget per query (a statement timeout's 503, a search's 422): counted, timed, not fatal. */
const failures = new Map<string, number>();

async function timeGet(baseUrl: string, key: string, pathAndQuery: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(`${baseUrl}${pathAndQuery}`, { headers: { 'x-api-key': key } });
  const body = await res.text();
  // 503: past the statement timeout; 422 SEARCH_TOO_BROAD: a search past SEARCH_BUDGET_MS.
  const pastBudget = res.status === 503 || (res.status === 422 && body.includes('SEARCH_TOO_BROAD'));
  if (pastBudget) failures.set(`${key} ${pathAndQuery}`, (failures.get(`${key} ${pathAndQuery}`) ?? 0) + 1);
  else if (res.status !== 200) throw new Error(`GET ${pathAndQuery} answered ${res.status}: ${body.slice(0, 300)}`);
  return performance.now() - started;
}

const timing = (samples: number[]): Timing => ({
  p50_ms: percentile(samples, 50),
  p99_ms: percentile(samples, 99),
  n: samples.length,
});

/** Sends from the large account, SEND_CONCURRENCY at a time, for `seconds` or until `done` says so. */
async function sendFor(
  baseUrl: string,
  key: string,
  seconds: number,
  label: string,
  done: () => boolean = () => false,
): Promise<number[]> {
  const samples: number[] = [];
  const deadline = performance.now() + seconds * 1000;
  let n = 0;
  const worker = async () => {
    while (performance.now() < deadline && !done()) {
      const i = n++;
      const started = performance.now();
      const res = await fetch(`${baseUrl}/api/v1/messages`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify({
          from: LARGE_PHONES[i % LARGE_PHONES.length],
          to: recipient(i),
          content: `Big-table send ${label} ${i}`,
          request_id: `big-${label}-${Date.now()}-${i}`,
        }),
      });
      const body = await res.text();
      if (res.status !== 201) throw new Error(`send answered ${res.status}: ${body.slice(0, 300)}`);
      samples.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: SEND_CONCURRENCY }, worker));
  return samples;
}

/** One sweep (bench/big-table-sweep.ts) in a process of its own (as a worker runs it), for at most `budgetMs`. */
function runSweep(
  budgetMs: number,
  sweep: 'retention' | 'rollups' = 'retention',
): Promise<{ report: Record<string, number>; ms: number }> {
  const root = path.resolve(import.meta.dirname, '..');
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'), path.join(root, 'bench', 'big-table-sweep.ts')],
      {
        cwd: root,
        env: {
          ...process.env,
          ...serverEnv(),
          LOG_LEVEL: 'warn',
          BENCH_SWEEP: sweep,
          BENCH_SWEEP_BUDGET_MS: String(budgetMs),
        },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.on('exit', (code) => {
      if (code !== 0) return reject(new Error(`sweep exited with ${code}`));
      resolve(JSON.parse(out.trim().split('\n').pop()!));
    });
  });
}

/**
 * Removes what earlier runs sent from the large account (their ledger and history rows too) and counts its
 * queue again: each run sends some 45,000 messages, all of today, and the statistics' live days, measured
 * before the sends, would otherwise grow with every run of the same day.
 */
async function removeEarlierSends(db: postgres.Sql, accountId: string): Promise<number> {
  const sent = db`select id from messages where account_id = ${accountId} and content like 'Big-table send %'`;
  await db`delete from credit_ledger where account_id = ${accountId} and message_id in (${sent})`;
  await db`delete from message_status_history where account_id = ${accountId} and message_id in (${sent})`;
  const removed = await db`delete from messages where account_id = ${accountId} and content like 'Big-table send %'`;
  await db`update account_queues set queued = (select count(*) from messages
    where account_id = ${accountId} and status = 'queued') where account_id = ${accountId}`;
  for (const table of ['messages', 'message_status_history', 'credit_ledger'])
    await db.unsafe(`vacuum (analyze) ${table}`);
  return removed.count;
}

/** The bench's online migration: migration 0050's statements, building its index again under another name. */
const BENCH_MIGRATION_TAG = '9999_bench_online_index';
const BENCH_MIGRATION_INDEX = 'bench_migrate_fts_idx';

/**
 * `npm run db:migrate` (scripts/migrate.ts, in a process of its own) of a release with one migration more
 * than the database has: a copy of the migrations folder (in a home of its own: the command reads the
 * folder from its working directory) plus migration 0050's text with its index renamed. Answers its time.
 */
function runMigrate(): Promise<number> {
  const root = path.resolve(import.meta.dirname, '..');
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-bench-migrate-'));
  const wordIndex = fs.readFileSync(path.join(root, 'db', 'migrations', '0050_messages_word_search.sql'), 'utf8');
  if (!wordIndex.startsWith(ONLINE_MARK)) throw new Error('migration 0050 is no longer an online migration');
  let text = wordIndex.replaceAll('messages_content_fts_idx', BENCH_MIGRATION_INDEX);
  // BENCH_MIGRATE_BLOCKING=1: the same build as a plain migration would run it, in its transaction (a
  // figure to compare with; sends wait for it).
  if (process.env.BENCH_MIGRATE_BLOCKING === '1')
    text = text.replace(new RegExp(`^${ONLINE_MARK}.*\\n`), '').replace(' CONCURRENTLY', '');
  migrationsWith([{ tag: BENCH_MIGRATION_TAG, text }], { into: path.join(home, 'db', 'migrations') });
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [
        path.join(root, 'node_modules', 'tsx', 'dist', 'cli.mjs'),
        '--tsconfig',
        path.join(root, 'tsconfig.json'),
        path.join(root, 'scripts', 'migrate.ts'),
      ],
      {
        cwd: home,
        env: { ...process.env, ...serverEnv(), LOG_LEVEL: 'warn' },
        stdio: ['ignore', 'inherit', 'inherit'],
      },
    );
    child.on('exit', (code) => {
      fs.rmSync(home, { recursive: true, force: true });
      if (code !== 0) return reject(new Error(`db:migrate exited with ${code}`));
      resolve(performance.now() - started);
    });
  });
}

/** Takes the bench's migration back out: the database is again at the code's newest migration. */
async function undoBenchMigration(db: postgres.Sql): Promise<void> {
  await db.unsafe(`drop index if exists "${BENCH_MIGRATION_INDEX}"`);
  const journalFile = path.resolve(import.meta.dirname, '..', 'db', 'migrations', 'meta', '_journal.json');
  const newest = (JSON.parse(fs.readFileSync(journalFile, 'utf8')) as { entries: Array<{ when: number }> }).entries.at(
    -1,
  )!.when;
  await db`delete from drizzle.__drizzle_migrations where created_at > ${newest}`;
  await db`delete from drizzle.simgate_schema_versions where tag = ${BENCH_MIGRATION_TAG}`;
}

export async function measureBigTable(): Promise<{
  results: BigTableResults;
  checks: Array<[string, boolean, string]>;
}> {
  const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} });
  const [exists] = await admin`select count(*)::int as n from pg_database where datname = ${DB_NAME}`;
  await admin.end();
  let seeded: Seeded | undefined;
  if (exists?.n && !process.env.BENCH_BIG_RESEED) {
    const probe = postgres(bigUrl(), { max: 1, onnotice: () => {} });
    seeded = await readMarker(probe);
    if (seeded) await catchUp(probe);
    await probe.end();
  }
  if (seeded) console.log(`${DB_NAME} holds ${seeded.messages.toLocaleString('en')} messages (seeded before)`);
  else {
    console.log(`seeding ${DB_NAME} with ${TOTAL.toLocaleString('en')} messages…`);
    seeded = await seed();
  }
  const db = postgres(bigUrl(), { max: 2, onnotice: () => {} });
  let server: Server | undefined;
  try {
    const removed = await removeEarlierSends(db, seeded.large_account);
    if (removed > 0) console.log(`removed ${removed.toLocaleString('en')} messages earlier runs sent`);
    const [counts] = await db`select
      (select count(*) from messages)::int as messages,
      (select reltuples::bigint from pg_class where relname = 'message_status_history')::bigint as history,
      (select reltuples::bigint from pg_class where relname = 'credit_ledger')::bigint as ledger,
      (select count(*) from messages where account_id = ${seeded.large_account})::int as large,
      (select count(*) from messages where account_id = ${seeded.small_account})::int as small,
      (pg_table_size('messages') / 1048576)::int as messages_mb,
      (pg_indexes_size('messages') / 1048576)::int as messages_indexes_mb,
      (pg_total_relation_size('message_status_history') / 1048576)::int as history_mb,
      (pg_total_relation_size('credit_ledger') / 1048576)::int as ledger_mb`;
    // The statistics' rollups of the days the seed wrote, or that left the live days since the last run.
    const rollup = await runSweep(3_600_000, 'rollups');
    console.log(`rollup sweep: ${rollup.report.days} days counted in ${(rollup.ms / 1000).toFixed(1)} s`);
    server = await startServer(serverEnv());
    const { baseUrl } = server;
    const keys = { large: seeded.large_key, small: seeded.small_key };
    const queries = [
      ...(await queriesFor(db, 'large', seeded.large_account, LARGE_PHONES[0]!)),
      ...(await queriesFor(db, 'small', seeded.small_account, SMALL_PHONE)),
    ];
    const samples = new Map<Query, number[]>(queries.map((q) => [q, []]));
    // Warm-up: one of each, then SAMPLES rounds that take the queries in turn (a query slower than a
    // second, a miss whatever its spread, only SLOW_SAMPLES of them, so that the run stays in minutes).
    const rounds = new Map<Query, number>();
    for (const q of queries) {
      rounds.set(q, (await timeGet(baseUrl, keys[q.account], q.path)) > 1_000 ? SLOW_SAMPLES : SAMPLES);
    }
    for (let round = 0; round < SAMPLES; round++) {
      for (const q of queries) {
        if (round < rounds.get(q)!) samples.get(q)!.push(await timeGet(baseUrl, keys[q.account], q.path));
      }
    }
    const perQuery: Record<string, Timing> = {};
    const byKind: Record<Query['kind'], number[]> = { list: [], search: [], substring: [], stats: [], ledger: [] };
    for (const q of queries) {
      const s = samples.get(q)!;
      const timeouts = failures.get(`${keys[q.account]} ${q.path}`);
      perQuery[`${q.account}: ${q.name}`] = timeouts ? { ...timing(s), timeouts } : timing(s);
      byKind[q.kind].push(...s);
    }

    // Printed now: the sends and the purge below take another minute and may fail on their own.
    printQueries(perQuery);

    // Sends without, then with, the sweep purging content older than 90 days (every account but the
    // two measured, so that their content stays for the next run's searches).
    await sendFor(baseUrl, keys.large, 3, 'warm');
    const without = await sendFor(baseUrl, keys.large, SEND_SECONDS, 'calm');
    await db`update accounts set retention_content_days = 90, retention_content_mode = 'hash'
      where id not in (${seeded.large_account}, ${seeded.small_account})`;
    let purge = { report: {} as Record<string, number>, ms: 0 };
    let during: number[] = [];
    try {
      [purge, during] = await Promise.all([
        runSweep(SEND_SECONDS * 1000 + 5_000),
        (async () => {
          // The sweep's process starts (tsx, config) before it purges.
          await new Promise((resolve) => setTimeout(resolve, 3_000));
          return sendFor(baseUrl, keys.large, SEND_SECONDS, 'purge');
        })(),
      ]);
    } finally {
      await db`update accounts set retention_content_days = null, retention_content_mode = null`;
    }
    // Sends while db:migrate builds an index of every message, CONCURRENTLY (an online migration).
    await undoBenchMigration(db);
    let migrated = false;
    let migrateMs = 0;
    let duringMigrate: number[] = [];
    try {
      [migrateMs, duringMigrate] = await Promise.all([
        runMigrate().finally(() => {
          migrated = true;
        }),
        sendFor(baseUrl, keys.large, 3_600, 'migrate', () => migrated),
      ]);
      console.log(
        `db:migrate of an online index build: ${(migrateMs / 1000).toFixed(1)} s, ${duringMigrate.length} sends meanwhile`,
      );
    } finally {
      await undoBenchMigration(db);
    }
    const purged = purge.report.message_content ?? 0;
    const results: BigTableResults = {
      messages: Number(counts!.messages),
      history_rows: Number(counts!.history),
      ledger_rows: Number(counts!.ledger),
      large_account_messages: Number(counts!.large),
      small_account_messages: Number(counts!.small),
      seed_s: seeded.seed_s,
      list_p50_ms: percentile(byKind.list, 50),
      list_p99_ms: percentile(byKind.list, 99),
      search_p50_ms: percentile(byKind.search, 50),
      search_p99_ms: percentile(byKind.search, 99),
      substring_search_p50_ms: percentile(byKind.substring, 50),
      substring_search_p99_ms: percentile(byKind.substring, 99),
      stats_p99_ms: percentile(byKind.stats, 99),
      ledger_p99_ms: percentile(byKind.ledger, 99),
      send_p99_ms_during_purge: percentile(during, 99),
      send_p99_ms_without_purge: percentile(without, 99),
      send_p50_ms_during_purge: percentile(during, 50),
      send_p50_ms_without_purge: percentile(without, 50),
      purge: { rows: purged, ms: Math.round(purge.ms), rows_per_s: Math.round(purged / (purge.ms / 1000)) },
      migrate: {
        ms: Math.round(migrateMs),
        sends: duringMigrate.length,
        send_p50_ms: percentile(duringMigrate, 50),
        send_p99_ms: percentile(duringMigrate, 99),
        send_max_ms: Math.max(0, ...duringMigrate),
      },
      rollup: { days: Number(rollup.report.days ?? 0), ms: Math.round(rollup.ms) },
      sizes_mb: {
        messages: Number(counts!.messages_mb),
        messages_indexes: Number(counts!.messages_indexes_mb),
        history: Number(counts!.history_mb),
        ledger: Number(counts!.ledger_mb),
      },
      queries: perQuery,
    };
    return { results, checks: checksOf(results) };
  } finally {
    await server?.stop();
    await db.end();
  }
}

function checksOf(r: BigTableResults): Array<[string, boolean, string]> {
  const ms = (n: number) => `${n.toFixed(1)} ms`;
  return [
    [`list p50 ≤ ${TARGETS.list_p50_ms} ms`, r.list_p50_ms <= TARGETS.list_p50_ms, ms(r.list_p50_ms)],
    [`list p99 ≤ ${TARGETS.list_p99_ms} ms`, r.list_p99_ms <= TARGETS.list_p99_ms, ms(r.list_p99_ms)],
    [`search p50 ≤ ${TARGETS.search_p50_ms} ms`, r.search_p50_ms <= TARGETS.search_p50_ms, ms(r.search_p50_ms)],
    [`search p99 ≤ ${TARGETS.search_p99_ms} ms`, r.search_p99_ms <= TARGETS.search_p99_ms, ms(r.search_p99_ms)],
    [`stats p99 ≤ ${TARGETS.stats_p99_ms} ms`, r.stats_p99_ms <= TARGETS.stats_p99_ms, ms(r.stats_p99_ms)],
    [
      'send p99 during a purge ≤ 1.2 × without',
      r.send_p99_ms_during_purge <= 1.2 * r.send_p99_ms_without_purge,
      `${ms(r.send_p99_ms_during_purge)} against ${ms(r.send_p99_ms_without_purge)}`,
    ],
    [
      'no send waits past 1 s during db:migrate',
      r.migrate.send_max_ms <= 1_000,
      `longest ${ms(r.migrate.send_max_ms)}, p99 ${ms(r.migrate.send_p99_ms)} of ${r.migrate.sends} sends in ${(r.migrate.ms / 1000).toFixed(0)} s`,
    ],
  ];
}

function printQueries(queries: Record<string, Timing>): void {
  const width = Math.max(...Object.keys(queries).map((k) => k.length));
  console.log(`${'query'.padEnd(width)}  p50 ms   p99 ms`);
  for (const [name, t] of Object.entries(queries)) {
    const note = t.timeouts ? `   ${t.timeouts} of ${t.n} past a budget (search or statement)` : '';
    console.log(
      `${name.padEnd(width)}  ${t.p50_ms.toFixed(1).padStart(6)}   ${t.p99_ms.toFixed(1).padStart(6)}${note}`,
    );
  }
}

export function printBigTable(r: BigTableResults): void {
  console.log(
    `\nten million messages: ${r.messages.toLocaleString('en')} messages (large account ${r.large_account_messages.toLocaleString('en')}, small ${r.small_account_messages.toLocaleString('en')}), ~${r.history_rows.toLocaleString('en')} history rows, ~${r.ledger_rows.toLocaleString('en')} ledger rows${r.seed_s === null ? '' : `, seeded in ${r.seed_s.toFixed(0)} s`}`,
  );
  printQueries(r.queries);
  console.log(
    `search p50 / p99: ${r.search_p50_ms.toFixed(1)} / ${r.search_p99_ms.toFixed(1)} ms by words and number prefix, ${r.substring_search_p50_ms.toFixed(1)} / ${r.substring_search_p99_ms.toFixed(1)} ms by substring`,
  );
  console.log(
    `sends p50 / p99: ${r.send_p50_ms_without_purge.toFixed(1)} / ${r.send_p99_ms_without_purge.toFixed(1)} ms without a purge, ${r.send_p50_ms_during_purge.toFixed(1)} / ${r.send_p99_ms_during_purge.toFixed(1)} ms during one`,
  );
  const { sizes_mb: mb } = r;
  console.log(
    `sizes: messages ${mb.messages} MB + ${mb.messages_indexes} MB of indexes, history ${mb.history} MB, ledger ${mb.ledger} MB`,
  );
  console.log(
    `purge: ${r.purge.rows.toLocaleString('en')} messages in ${(r.purge.ms / 1000).toFixed(1)} s (${r.purge.rows_per_s.toLocaleString('en')}/s)`,
  );
  console.log(
    `rollup sweep: ${r.rollup.days.toLocaleString('en')} days counted in ${(r.rollup.ms / 1000).toFixed(1)} s`,
  );
  const m = r.migrate;
  console.log(
    `sends during db:migrate (an online index build, ${(m.ms / 1000).toFixed(1)} s): ${m.sends} sends, p50 / p99 / longest ${m.send_p50_ms.toFixed(1)} / ${m.send_p99_ms.toFixed(1)} / ${m.send_max_ms.toFixed(1)} ms`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  measureBigTable()
    .then(({ results, checks }) => {
      printBigTable(results);
      console.log('');
      for (const [name, ok, detail] of checks) console.log(`${ok ? 'PASS' : 'MISS'}  ${name}: ${detail}`);
      process.exitCode = checks.every(([, ok]) => ok) ? 0 : 1;
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
