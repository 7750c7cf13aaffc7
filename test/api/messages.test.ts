import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { GET as readMessage } from '@/app/api/v1/messages/[id]/route';
import { GET as listMessages, POST as send } from '@/app/api/v1/messages/route';
import { creditLedger, messageStatusHistory, messages, phoneGroups, phones } from '@/db/schema';
import { sendMessage } from '@/lib/messages/send';
import { describeAuthCases } from '../auth-cases';
import { createTestAccount, sharedTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

const { account, fixture } = sharedTestAccount(db, { credits: 1000 });

function sendAs(who: TestAccount, body: Record<string, unknown>) {
  return call(send, { body: { from: who.phone, to: testNumber(), content: 'Hello', ...body }, apiKey: who.apiKey });
}

async function balanceOf(groupId: number): Promise<number> {
  const [group] = await db()
    .select({ balance: phoneGroups.balance })
    .from(phoneGroups)
    .where(eq(phoneGroups.id, groupId));
  return group!.balance;
}

async function ledgerSum(groupId: number): Promise<number> {
  const [row] = await db()
    .select({ sum: sql<number>`coalesce(sum(${creditLedger.amount}), 0)::int` })
    .from(creditLedger)
    .where(eq(creditLedger.groupId, groupId));
  return Number(row!.sum);
}

describeAuthCases('POST /api/v1/messages', {
  handler: send,
  request: () => ({ body: { from: account.phone, to: testNumber(), content: 'Hi' } }),
  accepts: 'account',
  fixture,
});
describeAuthCases('GET /api/v1/messages', { handler: listMessages, request: {}, accepts: 'account', fixture });
describeAuthCases('GET /api/v1/messages/{id}', {
  handler: readMessage,
  request: { params: { id: crypto.randomUUID() } },
  accepts: 'account',
  fixture,
});

describe('POST /api/v1/messages', () => {
  it('queues the message, charges one credit from the sender’s group and answers 201', async () => {
    const before = await balanceOf(account.defaultGroupId);
    const to = testNumber();
    const res = await sendAs(account, { to, content: 'Your table is ready', request_id: 'order-1' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      direction: 'outbound',
      from: account.phone,
      to,
      content: 'Your table is ready',
      status: 'queued',
      segments: 1,
      encoding: 'GSM-7',
      request_id: 'order-1',
      bulk_id: null,
    });
    expect(res.body.created_at).toMatch(/Z$/);
    expect(new Date(res.body.expires_at).getTime() - new Date(res.body.send_at).getTime()).toBe(24 * 3600_000);
    expect(await balanceOf(account.defaultGroupId)).toBe(before - 1);
    const [row] = await db().select().from(messages).where(eq(messages.id, res.body.id));
    expect(row?.groupId).toBe(account.defaultGroupId);
    const charges = await db().select().from(creditLedger).where(eq(creditLedger.messageId, res.body.id));
    expect(charges).toMatchObject([{ kind: 'message_charge', amount: -1, balanceAfter: before - 1 }]);
  });

  it('normalises numbers and counts UCS-2 segments', async () => {
    const res = await sendAs(account, { to: ' +1 (415) 555-0199 ', content: 'Привет '.repeat(20) });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ to: '+14155550199', encoding: 'UCS-2', segments: 3 });
  });

  it.each([
    ['to', { to: '12345' }],
    ['to', { to: '+1' }],
    ['from', { from: 'nobody' }],
    ['content', { content: '' }],
    ['content', { content: 'x'.repeat(1601) }],
    ['request_id', { request_id: 'r'.repeat(101) }],
    ['request_id', { request_id: 42 }],
    ['send_at', { send_at: 'tomorrow' }],
    ['send_at', { send_at: new Date(Date.now() - 5 * 60_000).toISOString() }],
    ['send_at', { send_at: new Date(Date.now() + 31 * 24 * 3600_000).toISOString() }],
    ['ttl_s', { ttl_s: 59 }],
    ['ttl_s', { ttl_s: 604801 }],
    ['ttl_s', { ttl_s: 1.5 }],
  ])('answers 400 VALIDATION_ERROR naming %s', async (path, body) => {
    const res = await sendAs(account, body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  });

  it('schedules with send_at and ttl_s', async () => {
    const sendAt = new Date(Date.now() + 3600_000);
    const res = await sendAs(account, { send_at: sendAt.toISOString(), ttl_s: 600 });
    expect(res.status).toBe(201);
    expect(res.body.send_at).toBe(sendAt.toISOString());
    expect(res.body.expires_at).toBe(new Date(sendAt.getTime() + 600_000).toISOString());
  });

  it('answers 403 FORBIDDEN for a sender that is not a phone of the account, before any other check', async () => {
    const other = await createTestAccount(db(), { credits: 0 });
    await sendAs(account, { request_id: 'taken-by-account' });
    const res = await call(send, {
      body: { from: other.phone, to: testNumber(), content: 'x', request_id: 'taken-by-account' },
      apiKey: account.apiKey,
    });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
    const unregistered = await call(send, {
      body: { from: testNumber(), to: testNumber(), content: 'x' },
      apiKey: account.apiKey,
    });
    expect(unregistered.body.code).toBe('FORBIDDEN');
  });

  it('answers 409 DUPLICATE_REQUEST with the existing message id, before the credit check', async () => {
    const poor = await createTestAccount(db(), { credits: 1 });
    const first = await sendAs(poor, { request_id: 'once' });
    expect(first.status).toBe(201);
    const again = await sendAs(poor, { request_id: 'once', content: 'different' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'DUPLICATE_REQUEST', message_id: first.body.id });
    expect(await balanceOf(poor.defaultGroupId)).toBe(0);
  });

  it('lets two accounts use one request_id', async () => {
    const other = await createTestAccount(db());
    expect((await sendAs(account, { request_id: 'shared-id' })).status).toBe(201);
    expect((await sendAs(other, { request_id: 'shared-id' })).status).toBe(201);
  });

  it('answers 402 INSUFFICIENT_CREDITS at a zero balance and keeps nothing', async () => {
    const broke = await createTestAccount(db(), { credits: 0 });
    const res = await sendAs(broke, { request_id: 'no-money' });
    expect(res.status).toBe(402);
    expect(res.body.code).toBe('INSUFFICIENT_CREDITS');
    const rows = await db().select().from(messages).where(eq(messages.accountId, broke.accountId));
    expect(rows).toHaveLength(0);
    // The refused request_id stays free for a retry once credits arrive.
    await db().update(phoneGroups).set({ balance: 1 }).where(eq(phoneGroups.id, broke.defaultGroupId));
    expect((await sendAs(broke, { request_id: 'no-money' })).status).toBe(201);
  });

  it('charges the group the sender phone is in', async () => {
    const rich = await createTestAccount(db(), { credits: 5 });
    const [group] = await db()
      .insert(phoneGroups)
      .values({ accountId: rich.accountId, name: 'Sales', nameKey: 'sales', balance: 3 })
      .returning();
    await db().update(phones).set({ groupId: group!.id }).where(eq(phones.id, rich.phoneId));
    const res = await sendAs(rich, {});
    expect(res.status).toBe(201);
    expect(await balanceOf(group!.id)).toBe(2);
    expect(await balanceOf(rich.defaultGroupId)).toBe(5);
  });

  it('makes one message and one charge from 12 concurrent sends with one request_id', async () => {
    const racer = await createTestAccount(db(), { credits: 50 });
    const results = await Promise.all(
      Array.from({ length: 12 }, () => sendAs(racer, { request_id: 'race', to: '+14155550100' })),
    );
    const created = results.filter((r) => r.status === 201);
    expect(created).toHaveLength(1);
    const id = created[0]!.body.id;
    for (const r of results.filter((r) => r.status !== 201)) {
      expect(r.status).toBe(409);
      expect(r.body).toMatchObject({ code: 'DUPLICATE_REQUEST', message_id: id });
    }
    expect(await balanceOf(racer.defaultGroupId)).toBe(49);
    const charges = await db().select().from(creditLedger).where(eq(creditLedger.accountId, racer.accountId));
    expect(charges.filter((c) => c.kind === 'message_charge')).toHaveLength(1);
  });

  it('never overdraws: 25 parallel sends on a balance of 10 make exactly 10 messages', async () => {
    const racer = await createTestAccount(db(), { credits: 10 });
    const startSum = await ledgerSum(racer.defaultGroupId);
    const results = await Promise.all(Array.from({ length: 25 }, () => sendAs(racer, {})));
    expect(results.filter((r) => r.status === 201)).toHaveLength(10);
    expect(results.filter((r) => r.status === 402)).toHaveLength(15);
    expect(await balanceOf(racer.defaultGroupId)).toBe(0);
    expect(await ledgerSum(racer.defaultGroupId)).toBe(startSum - 10);
    const rows = await db().select().from(messages).where(eq(messages.accountId, racer.accountId));
    expect(rows).toHaveLength(10);
  });
});

describe('sendMessage inside a caller’s transaction', () => {
  it('leaves the transaction usable after a refused send', async () => {
    const broke = await createTestAccount(db(), { credits: 0 });
    await db().transaction(async (tx) => {
      await expect(
        sendMessage(tx, broke.accountId, { origin: 'api', from: broke.phone, to: testNumber(), content: 'x' }),
      ).rejects.toMatchObject({ code: 'INSUFFICIENT_CREDITS', status: 402 });
      await tx.update(phoneGroups).set({ balance: 1 }).where(eq(phoneGroups.id, broke.defaultGroupId));
      const sent = await sendMessage(tx, broke.accountId, {
        origin: 'api',
        from: broke.phone,
        to: testNumber(),
        content: 'x',
      });
      expect(sent.status).toBe('queued');
    });
    const rows = await db().select().from(messages).where(eq(messages.accountId, broke.accountId));
    expect(rows).toHaveLength(1);
  });
});

describe('GET /api/v1/messages', () => {
  it('lists newest first with cursor pagination and filters', async () => {
    const lister = await createTestAccount(db(), { credits: 10 });
    const sent = [];
    for (let i = 0; i < 5; i++) sent.push((await sendAs(lister, { content: `m${i}` })).body.id);
    const page1 = await call(listMessages, { path: '/api/v1/messages?limit=2', apiKey: lister.apiKey });
    expect(page1.status).toBe(200);
    expect(page1.body.data.map((m: { id: string }) => m.id)).toEqual([sent[4], sent[3]]);
    const page2 = await call(listMessages, {
      path: `/api/v1/messages?limit=2&cursor=${page1.body.next_cursor}`,
      apiKey: lister.apiKey,
    });
    const page3 = await call(listMessages, {
      path: `/api/v1/messages?limit=2&cursor=${page2.body.next_cursor}`,
      apiKey: lister.apiKey,
    });
    expect(page2.body.data.map((m: { id: string }) => m.id)).toEqual([sent[2], sent[1]]);
    expect(page3.body.data.map((m: { id: string }) => m.id)).toEqual([sent[0]]);
    expect(page3.body.next_cursor).toBeNull();

    await db().update(messages).set({ status: 'failed' }).where(eq(messages.id, sent[0]!));
    const failed = await call(listMessages, { path: '/api/v1/messages?status=failed', apiKey: lister.apiKey });
    expect(failed.body.data.map((m: { id: string }) => m.id)).toEqual([sent[0]]);
    const inbound = await call(listMessages, { path: '/api/v1/messages?direction=inbound', apiKey: lister.apiKey });
    expect(inbound.body.data).toEqual([]);
    const byPhone = await call(listMessages, {
      path: `/api/v1/messages?phone=${encodeURIComponent(lister.phone)}&limit=100`,
      apiKey: lister.apiKey,
    });
    expect(byPhone.body.data).toHaveLength(5);
  });

  it('filters by creation range', async () => {
    const lister = await createTestAccount(db(), { credits: 10 });
    const old = (await sendAs(lister, {})).body.id;
    await db()
      .update(messages)
      .set({ createdAt: new Date('2020-01-01T00:00:00Z') })
      .where(eq(messages.id, old));
    const recent = (await sendAs(lister, {})).body.id;
    const after = await call(listMessages, {
      path: '/api/v1/messages?created_after=2021-01-01T00:00:00Z',
      apiKey: lister.apiKey,
    });
    expect(after.body.data.map((m: { id: string }) => m.id)).toEqual([recent]);
    const before = await call(listMessages, {
      path: '/api/v1/messages?created_before=2021-01-01T00:00:00Z',
      apiKey: lister.apiKey,
    });
    expect(before.body.data.map((m: { id: string }) => m.id)).toEqual([old]);
  });

  it('reads an unencoded + in the phone and in time offsets', async () => {
    const lister = await createTestAccount(db(), { credits: 2 });
    const id = (await sendAs(lister, {})).body.id;
    const res = await call(listMessages, {
      path: `/api/v1/messages?phone=${lister.phone}&created_after=2020-01-01T00:00:00+02:00`,
      apiKey: lister.apiKey,
    });
    expect(res.status).toBe(200);
    expect(res.body.data.map((m: { id: string }) => m.id)).toEqual([id]);
  });

  it.each([
    'status=lost',
    'direction=sideways',
    'phone=abc',
    'created_after=yesterday',
    'limit=0',
    'limit=101',
    'cursor=garbage',
  ])('answers 400 for %s', async (query) => {
    const res = await call(listMessages, { path: `/api/v1/messages?${query}`, apiKey: account.apiKey });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });
});

describe('GET /api/v1/messages/{id}', () => {
  it('reads the message with its state history', async () => {
    const sent = await sendAs(account, {});
    const res = await call(readMessage, { params: { id: sent.body.id }, apiKey: account.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: sent.body.id, status: 'queued' });
    expect(res.body.history).toEqual([{ status: 'queued', at: sent.body.created_at }]);
  });

  it('answers 404 for an unknown id and 400 for a malformed one', async () => {
    expect((await call(readMessage, { params: { id: crypto.randomUUID() }, apiKey: account.apiKey })).status).toBe(404);
    const bad = await call(readMessage, { params: { id: 'nope' }, apiKey: account.apiKey });
    expect(bad.status).toBe(400);
  });
});

describe('a second account', () => {
  it('cannot see, list or send from the first account’s messages and phones', async () => {
    const other = await createTestAccount(db());
    const mine = await sendAs(account, {});
    const read = await call(readMessage, { params: { id: mine.body.id }, apiKey: other.apiKey });
    expect(read.status).toBe(404);
    expect(read.body.code).toBe('NOT_FOUND');
    const list = await call(listMessages, { path: '/api/v1/messages?limit=100', apiKey: other.apiKey });
    expect(list.body.data.map((m: { id: string }) => m.id)).not.toContain(mine.body.id);
    const byPhone = await call(listMessages, {
      path: `/api/v1/messages?phone=${encodeURIComponent(account.phone)}`,
      apiKey: other.apiKey,
    });
    expect(byPhone.body.data).toEqual([]);
    const forged = await call(send, {
      body: { from: account.phone, to: testNumber(), content: 'spoof' },
      apiKey: other.apiKey,
    });
    expect(forged.status).toBe(403);
    expect(forged.body.code).toBe('FORBIDDEN');
    const history = await db()
      .select()
      .from(messageStatusHistory)
      .where(and(eq(messageStatusHistory.messageId, mine.body.id)));
    expect(history).toHaveLength(1);
  });
});
