// GET /api/v1/messages?q=: words through messages_content_fts_idx by default, substrings through the
// substring index when asked or when `q` is no word, and the start of a counterpart number; content the
// retention sweep purged is not searched.
import { createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { GET as list, POST as send } from '@/app/api/v1/messages/route';
import { queryRows } from '@/db';
import { citusMode, onRealPostgres } from '../database';
import { createTestAccount, type TestAccount } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

let account: TestAccount;
let other: TestAccount;
/** The account's messages by name, sent in this order (so listed newest, the last, first). */
const sent: Record<string, string> = {};

const CONTENTS = {
  pizzaWay: ['+14155559001', 'Your PIZZA is on its way'],
  luigi: ['+14155559002', "Table for two at Luigi's pizza"],
  payment: ['+14155559003', 'Thanks for your payment of 20 USD'],
  payNow: ['+14155559004', 'Pay now: code 51234'],
  cyrillic: ['+14155559005', 'Привет, мир! Ваш заказ готов'],
  chinese: ['+14155559006', '你好世界，订单已发货'],
  emoji: ['+14155559007', 'Party 🎉 tonight'],
  sale: ['+447911123457', 'Flash sale: 100% off_all shoes'],
} as const;

beforeAll(async () => {
  account = await createTestAccount(db(), { credits: 20 });
  other = await createTestAccount(db(), { credits: 5 });
  for (const [name, [to, content]] of Object.entries(CONTENTS)) {
    const res = await call(send, { body: { from: account.phone, to, content }, apiKey: account.apiKey });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    sent[name] = res.body.id;
  }
  const res = await call(send, {
    body: { from: other.phone, to: '+14155559001', content: "pizza at Luigi's, for someone else" },
    apiKey: other.apiKey,
  });
  expect(res.status).toBe(201);
});

async function searchAnswer(q: string, extra = '', who = account) {
  return call(list, { path: `/x?limit=100&q=${encodeURIComponent(q)}${extra}`, apiKey: who.apiKey });
}

/** The names of the account's messages a search finds, newest first. */
async function search(q: string, extra = ''): Promise<string[]> {
  const res = await searchAnswer(q, extra);
  expect(res.status).toBe(200);
  const names = Object.fromEntries(Object.entries(sent).map(([name, id]) => [id, name]));
  return res.body.data.map((m: { id: string }) => names[m.id] ?? `another account's ${m.id}`);
}

describe('search by words (the default)', () => {
  it('finds every message holding the word, any case, and only the account’s own', async () => {
    expect(await search('pizza')).toEqual(['luigi', 'pizzaWay']);
    expect(await search('PiZzA')).toEqual(['luigi', 'pizzaWay']);
    const others = await searchAnswer('pizza', '', other);
    expect(others.body.data.map((m: { content: string }) => m.content)).toEqual(["pizza at Luigi's, for someone else"]);
  });

  it('matches whole words only, so a fragment of a word finds nothing', async () => {
    expect(await search('pay')).toEqual(['payNow']);
    expect(await search('piz')).toEqual([]);
  });

  it('needs every word, in any order, and a quoted phrase needs them adjacent and in order', async () => {
    expect(await search('pizza luigi')).toEqual(['luigi']);
    expect(await search('"your pizza"')).toEqual(['pizzaWay']);
    expect(await search('"pizza your"')).toEqual([]);
    // "Luigi's pizza": the apostrophe splits off an "s" between the two words.
    expect(await search('"luigi pizza"')).toEqual([]);
    expect(await search('"luigi\'s pizza"')).toEqual(['luigi']);
  });

  it('leaves out messages with a -word, and takes alternatives with or', async () => {
    expect(await search('pizza -luigi')).toEqual(['pizzaWay']);
    expect(await search('luigi or payment')).toEqual(['payment', 'luigi']);
    const withoutPizza = await search('-pizza');
    expect(withoutPizza).not.toContain('pizzaWay');
    expect(withoutPizza).not.toContain('luigi');
    expect(withoutPizza).toContain('payment');
  });

  it('ignores punctuation around words and reads words of other alphabets', async () => {
    expect(await search('pizza!')).toEqual(['luigi', 'pizzaWay']);
    expect(await search('100%')).toEqual(['sale']);
    expect(await search('ПРИВЕТ')).toEqual(['cyrillic']);
    expect(await search('заказ')).toEqual(['cyrillic']);
  });

  it('combines with the other filters', async () => {
    expect(await search('pizza', '&status=delivered')).toEqual([]);
    expect(await search('pizza', '&direction=outbound')).toEqual(['luigi', 'pizzaWay']);
  });

  it('pages through the matches with the cursor', async () => {
    const first = await call(list, { path: '/x?limit=1&q=pizza', apiKey: account.apiKey });
    expect(first.body.data.map((m: { id: string }) => m.id)).toEqual([sent.luigi]);
    const second = await call(list, {
      path: `/x?limit=1&q=pizza&cursor=${first.body.next_cursor}`,
      apiKey: account.apiKey,
    });
    expect(second.body.data.map((m: { id: string }) => m.id)).toEqual([sent.pizzaWay]);
  });
});

describe('search by substring', () => {
  it('finds a fragment of a word with match=substring, any case, without search syntax', async () => {
    expect(await search('pay', '&match=substring')).toEqual(['payNow', 'payment']);
    expect(await search('PIZ', '&match=substring')).toEqual(['luigi', 'pizzaWay']);
    expect(await search('pizza -luigi', '&match=substring')).toEqual([]);
    expect(await search("luigi's pizza", '&match=substring')).toEqual(['luigi']);
  });

  it('takes LIKE’s own characters literally', async () => {
    expect(await search('100%', '&match=substring')).toEqual(['sale']);
    expect(await search('off_all', '&match=substring')).toEqual(['sale']);
    expect(await search('f_a', '&match=substring')).toEqual(['sale']);
    expect(await search('%', '&match=substring')).toEqual(['sale']);
    expect(await search('_', '&match=substring')).toEqual(['sale']);
  });

  it('is what a query without a letter or digit, or in a script without spaces, gets', async () => {
    expect(await search('🎉')).toEqual(['emoji']);
    expect(await search('%')).toEqual(['sale']);
    expect(await search('你好')).toEqual(['chinese']);
    expect(await search('订单')).toEqual(['chinese']);
  });

  it('is what a number gets in the content, beside the start of a counterpart number', async () => {
    expect(await search('1234')).toEqual(['payNow']);
    expect(await search('51234')).toEqual(['payNow']);
    const us = ['emoji', 'chinese', 'cyrillic', 'payNow', 'payment', 'luigi', 'pizzaWay'];
    expect(await search('+1415555900')).toEqual(us);
    expect(await search('14155559002')).toEqual(['luigi']);
    expect(await search('+44 7911 123')).toEqual(['sale']);
    expect(await search('(415) 555-9003')).toEqual([]);
    expect(await search('1415 555-9003')).toEqual(['payment']);
  });

  it('refuses an unknown match', async () => {
    const res = await searchAnswer('pizza', '&match=regex');
    expect(res.status).toBe(400);
  });
});

describe('purged content', () => {
  it('is not searched, by its words nor by its hash; the message is still found by its number', async () => {
    const retired = await createTestAccount(db(), { credits: 5 });
    const res = await call(send, {
      body: { from: retired.phone, to: '+14155559081', content: 'Retired pizza note' },
      apiKey: retired.apiKey,
    });
    expect(res.status).toBe(201);
    // As the retention sweep leaves a final message in hash mode (lib/retention/sweep.ts; test/retention.test.ts).
    const hash = createHash('sha256').update('Retired pizza note', 'utf8').digest('hex');
    const [row] = await queryRows<{ content: string }>(
      db(),
      sql`update messages set status = 'delivered', content = ${hash}, content_purged_at = now()
        where account_id = ${retired.accountId}::uuid and id = ${res.body.id}::uuid returning content`,
    );
    expect(row!.content).toBe(hash);
    const found = async (q: string, extra = '') => {
      const answer = await searchAnswer(q, extra, retired);
      expect(answer.status).toBe(200);
      return answer.body.data.map((m: { id: string }) => m.id);
    };
    expect(await found('pizza')).toEqual([]);
    expect(await found(row!.content.slice(0, 64))).toEqual([]);
    expect(await found(row!.content.slice(10, 20), '&match=substring')).toEqual([]);
    expect(await found('+1415555908')).toEqual([res.body.id]);
  });
});

describe('hostile queries', () => {
  const hostile = [
    '&|!:*',
    '"',
    '"""',
    '-',
    '--pizza',
    '!!!',
    ':*',
    'pizza:*',
    'pizza & | ! <-> luigi',
    "'",
    "''pizza''",
    '\\',
    '((((',
    'or',
    'or or or',
    '-or',
    '" or "',
    'a'.repeat(100),
    `${'pizza '.repeat(15)}pizza`,
    'ö'.repeat(100),
    '🎉'.repeat(50),
    '👨‍👩‍👧‍👦 pizza',
    'é\u0301',
    '\u200b',
    'ＰＩＺＺＡ',
    "'; drop table messages; --",
  ];
  it.each(hostile)('%j answers 200', async (q) => {
    for (const match of ['', '&match=substring']) {
      const res = await searchAnswer(q, match);
      expect(res.status, `${q} ${match}`).toBe(200);
      expect(Array.isArray(res.body.data)).toBe(true);
    }
  });

  it('refuses a q past 100 characters, and a NUL character, with 400', async () => {
    expect((await searchAnswer('a'.repeat(101))).status).toBe(400);
    expect((await searchAnswer('pizza\u0000')).status).toBe(400);
  });
});

describe.runIf(onRealPostgres())('on PostgreSQL', () => {
  it('serves the content predicates through the word and the substring indexes', async () => {
    const plans = await db().transaction(async (tx) => {
      // On a Citus coordinator the setting must reach the workers, where the shards' plans are made.
      if (citusMode()) await tx.execute(sql`set local citus.propagate_set_commands = 'local'`);
      await tx.execute(sql`set local enable_seqscan = off`);
      const words = await tx.execute(
        sql`explain select id from messages where content_purged_at is null
          and to_tsvector('simple', content) @@ websearch_to_tsquery('simple', 'pizza')`,
      );
      const substring = await tx.execute(
        sql`explain select id from messages where content_purged_at is null and content ilike '%pizza%'`,
      );
      return { words: JSON.stringify(words), substring: JSON.stringify(substring) };
    });
    expect(plans.words).toContain('messages_content_fts_idx');
    expect(plans.substring).toContain('messages_content_substring_idx');
  });

  it('answers 422 SEARCH_TOO_BROAD past SEARCH_BUDGET_MS, naming what narrows it; a list without q is not bounded', async () => {
    const busy = await createTestAccount(db());
    // Messages that all say "Luigi's pizza": the phrase "Luigi pizza" reads every one of them.
    await db().execute(sql`insert into messages (account_id, phone_id, group_id, direction, "from", "to", content,
        status, segments, encoding)
      select ${busy.accountId}::uuid, ${busy.phoneId}::uuid, ${busy.defaultGroupId}, 'outbound', ${busy.phone},
        '+14155550000', 'Table at Luigi''s pizza, number ' || g, 'delivered', 1, 'GSM-7'
      from generate_series(1, 20000) g`);
    expect((await searchAnswer('"Luigi pizza"', '', busy)).status).toBe(200);
    process.env.SEARCH_BUDGET_MS = '1';
    try {
      const res = await searchAnswer('"Luigi pizza"', '', busy);
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(res.body).toMatchObject({ code: 'SEARCH_TOO_BROAD', status: 422 });
      expect(res.body.detail).toMatch(/created_after/);
      const plain = await call(list, { path: '/x?limit=5', apiKey: busy.apiKey });
      expect(plain.status).toBe(200);
      expect(plain.body.data).toHaveLength(5);
    } finally {
      delete process.env.SEARCH_BUDGET_MS;
    }
  });
});
