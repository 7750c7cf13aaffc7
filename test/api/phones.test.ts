import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { DELETE, GET as getOne, PATCH } from '@/app/api/v1/phones/[id]/route';
import { GET as list, POST } from '@/app/api/v1/phones/route';
import { creditLedger, devices, messages, phoneGroups } from '@/db/schema';
import { sendMessage } from '@/lib/messages/send';
import { describeAuthCases } from '../auth-cases';
import { createTestAccount, sharedTestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

const { account, fixture } = sharedTestAccount(db, { plan: 'pro' });

async function addGroup(accountId: string, name: string): Promise<number> {
  const [group] = await db()
    .insert(phoneGroups)
    .values({ accountId, name, nameKey: name.toLowerCase() })
    .returning({ id: phoneGroups.id });
  return group!.id;
}

function create(apiKey: string, body: unknown) {
  return call(POST, { body, apiKey });
}

describe('POST /api/v1/phones', () => {
  it('answers 201 with the phone in the default group', async () => {
    const phone = testNumber();
    const res = await create(account.apiKey, { phone, label: 'Front desk' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      phone,
      label: 'Front desk',
      group_id: account.defaultGroupId,
      device_connected: false,
      sim_verification: 'unverified',
      status: 'unknown',
      battery: null,
      last_heartbeat_at: null,
      messages_per_minute: 10,
      daily_cap: null,
      hourly_cap: null,
      monthly_recipient_cap: null,
      jitter_seconds: 0,
      paused_until: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
  });

  it('puts the phone in the group asked for', async () => {
    const groupId = await addGroup(account.accountId, `g-${crypto.randomUUID()}`);
    const res = await create(account.apiKey, { phone: testNumber(), group_id: groupId });
    expect(res.status).toBe(201);
    expect(res.body.group_id).toBe(groupId);
  });

  it('answers 409 DUPLICATE_PHONE for a number already in the account', async () => {
    const res = await create(account.apiKey, { phone: account.phone });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('DUPLICATE_PHONE');
  });

  it('lets another account register the same number', async () => {
    const other = await createTestAccount(db());
    const res = await create(other.apiKey, { phone: account.phone });
    expect(res.status).toBe(201);
  });

  it('answers 403 PLAN_LIMIT_REACHED past the plan maximum', async () => {
    const free = await createTestAccount(db());
    expect((await create(free.apiKey, { phone: testNumber() })).status).toBe(201);
    expect((await create(free.apiKey, { phone: testNumber() })).status).toBe(201);
    const res = await create(free.apiKey, { phone: testNumber() });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('PLAN_LIMIT_REACHED');
  });

  it('holds the plan maximum under 20 concurrent creates', async () => {
    const free = await createTestAccount(db());
    const results = await Promise.all(Array.from({ length: 20 }, () => create(free.apiKey, { phone: testNumber() })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(2);
    expect(results.filter((r) => r.status === 403).every((r) => r.body.code === 'PLAN_LIMIT_REACHED')).toBe(true);
    const listed = await call(list, { apiKey: free.apiKey });
    expect(listed.body.data).toHaveLength(3);
  });

  it('answers 404 GROUP_NOT_FOUND for an unknown group', async () => {
    const res = await create(account.apiKey, { phone: testNumber(), group_id: 2147483647 });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('GROUP_NOT_FOUND');
  });

  it.each([
    ['a bad number', { phone: '12345' }],
    ['a number without +', { phone: '14155550100' }],
    ['a missing number', { label: 'x' }],
    ['a number as a number', { phone: 14155550100 }],
    ['a huge label', { phone: '+14155550100', label: 'x'.repeat(101) }],
    ['a label that is not a string', { phone: '+14155550100', label: 5 }],
    ['a string group id', { phone: '+14155550100', group_id: '1' }],
    ['a fractional group id', { phone: '+14155550100', group_id: 1.5 }],
    ['a negative group id', { phone: '+14155550100', group_id: -1 }],
    ['a group id past 32 bits', { phone: '+14155550100', group_id: 2147483648 }],
    ['an array body', [1, 2]],
  ])('answers 400 VALIDATION_ERROR for %s', async (_name, body) => {
    const res = await create(account.apiKey, body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });
});

describe('GET /api/v1/phones', () => {
  it('lists the account’s phones newest first, page by page', async () => {
    const owner = await createTestAccount(db(), { plan: 'pro' });
    for (let i = 0; i < 4; i++) await create(owner.apiKey, { phone: testNumber() });
    const first = await call(list, { path: '/api/v1/phones?limit=3', apiKey: owner.apiKey });
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(3);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await call(list, {
      path: `/api/v1/phones?limit=3&cursor=${first.body.next_cursor}`,
      apiKey: owner.apiKey,
    });
    expect(second.body).toMatchObject({ next_cursor: null });
    expect(second.body.data).toHaveLength(2);
    expect(second.body.next_cursor).toBeNull();
    const all = [...first.body.data, ...second.body.data];
    expect(new Set(all.map((p: { id: string }) => p.id)).size).toBe(5);
    const times = all.map((p: { created_at: string }) => p.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    expect(all.find((p: { id: string }) => p.id === owner.phoneId)?.device_connected).toBe(true);
  });

  it('filters by group and by status', async () => {
    const owner = await createTestAccount(db(), { plan: 'pro' });
    const groupId = await addGroup(owner.accountId, 'Sales');
    const inGroup = await create(owner.apiKey, { phone: testNumber(), group_id: groupId });
    const byGroup = await call(list, { path: `/api/v1/phones?group_id=${groupId}`, apiKey: owner.apiKey });
    expect(byGroup.body.data.map((p: { id: string }) => p.id)).toEqual([inGroup.body.id]);
    const online = await call(list, { path: '/api/v1/phones?status=online', apiKey: owner.apiKey });
    expect(online.body.data).toEqual([]);
    const unknown = await call(list, { path: '/api/v1/phones?status=unknown', apiKey: owner.apiKey });
    expect(unknown.body.data).toHaveLength(2);
  });

  it.each([
    'status=sleeping',
    'group_id=abc',
    'group_id=1.5',
    'group_id=-2',
    'group_id=99999999999',
    'limit=0',
    'limit=101',
    'limit=ten',
    'cursor=garbage',
    `cursor=${Buffer.from(JSON.stringify(['2026-01-01T00:00:00.000Z', 'not-a-uuid'])).toString('base64url')}`,
  ])('answers 400 VALIDATION_ERROR for ?%s', async (query) => {
    const res = await call(list, { path: `/api/v1/phones?${query}`, apiKey: account.apiKey });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });
});

describe('GET /api/v1/phones/{id}', () => {
  it('reads a phone, device_connected for the activated device’s number', async () => {
    const res = await call(getOne, { params: { id: account.phoneId }, apiKey: account.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: account.phoneId, phone: account.phone, device_connected: true });
  });

  it('answers 404 NOT_FOUND for an unknown id and 400 for a malformed one', async () => {
    const missing = await call(getOne, { params: { id: crypto.randomUUID() }, apiKey: account.apiKey });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('NOT_FOUND');
    const malformed = await call(getOne, { params: { id: '42' }, apiKey: account.apiKey });
    expect(malformed.status).toBe(400);
    expect(malformed.body.code).toBe('VALIDATION_ERROR');
  });

  it('says device_connected false once the device is revoked', async () => {
    const owner = await createTestAccount(db());
    await db().update(devices).set({ status: 'revoked' }).where(eq(devices.id, owner.deviceId));
    const res = await call(getOne, { params: { id: owner.phoneId }, apiKey: owner.apiKey });
    expect(res.body.device_connected).toBe(false);
  });
});

describe('PATCH /api/v1/phones/{id}', () => {
  it('changes the label, group and pacing, keeping what is left out', async () => {
    const created = await create(account.apiKey, { phone: testNumber(), label: 'old' });
    const groupId = await addGroup(account.accountId, `p-${crypto.randomUUID()}`);
    const id = created.body.id;
    const res = await call(PATCH, {
      method: 'PATCH',
      params: { id },
      body: { group_id: groupId, messages_per_minute: 30, daily_cap: 500 },
      apiKey: account.apiKey,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ label: 'old', group_id: groupId, messages_per_minute: 30, daily_cap: 500 });
    const cleared = await call(PATCH, {
      method: 'PATCH',
      params: { id },
      body: { label: null, daily_cap: null },
      apiKey: account.apiKey,
    });
    expect(cleared.body).toMatchObject({ label: null, daily_cap: null, messages_per_minute: 30, group_id: groupId });
    const unchanged = await call(PATCH, { method: 'PATCH', params: { id }, body: {}, apiKey: account.apiKey });
    expect(unchanged.status).toBe(200);
    expect(unchanged.body).toEqual(cleared.body);
  });

  it('answers 404 GROUP_NOT_FOUND for another account’s group', async () => {
    const other = await createTestAccount(db());
    const res = await call(PATCH, {
      method: 'PATCH',
      params: { id: account.phoneId },
      body: { group_id: other.defaultGroupId },
      apiKey: account.apiKey,
    });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('GROUP_NOT_FOUND');
  });

  it.each([
    ['messages_per_minute 0', { messages_per_minute: 0 }],
    ['messages_per_minute 61', { messages_per_minute: 61 }],
    ['messages_per_minute as a string', { messages_per_minute: '10' }],
    ['messages_per_minute fractional', { messages_per_minute: 2.5 }],
    ['daily_cap 0', { daily_cap: 0 }],
    ['daily_cap negative', { daily_cap: -5 }],
    ['daily_cap as a string', { daily_cap: '100' }],
    ['a huge label', { label: 'y'.repeat(5000) }],
    ['a group id string', { group_id: 'one' }],
  ])('answers 400 VALIDATION_ERROR for %s', async (_name, body) => {
    const res = await call(PATCH, { method: 'PATCH', params: { id: account.phoneId }, body, apiKey: account.apiKey });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });
});

describe('DELETE /api/v1/phones/{id}', () => {
  it('answers 204, then 404, and frees a place under the plan', async () => {
    const free = await createTestAccount(db());
    const second = await create(free.apiKey, { phone: testNumber() });
    await create(free.apiKey, { phone: testNumber() });
    expect((await create(free.apiKey, { phone: testNumber() })).status).toBe(403);
    const res = await call(DELETE, { method: 'DELETE', params: { id: second.body.id }, apiKey: free.apiKey });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const again = await call(DELETE, { method: 'DELETE', params: { id: second.body.id }, apiKey: free.apiKey });
    expect(again.status).toBe(404);
    expect((await create(free.apiKey, { phone: testNumber() })).status).toBe(201);
  });

  it('refunds the phone’s queued messages before they go with it', async () => {
    const owner = await createTestAccount(db(), { credits: 10 });
    await sendMessage(db(), owner.accountId, { origin: 'api', from: owner.phone, to: testNumber(), content: 'a' });
    await sendMessage(db(), owner.accountId, { origin: 'api', from: owner.phone, to: testNumber(), content: 'b' });
    const before = await db().select().from(phoneGroups).where(eq(phoneGroups.id, owner.defaultGroupId));
    expect(before[0]?.balance).toBe(8);
    const res = await call(DELETE, { method: 'DELETE', params: { id: owner.phoneId }, apiKey: owner.apiKey });
    expect(res.status).toBe(204);
    const [group] = await db().select().from(phoneGroups).where(eq(phoneGroups.id, owner.defaultGroupId));
    expect(group?.balance).toBe(10);
    const refunds = await db().select().from(creditLedger).where(eq(creditLedger.accountId, owner.accountId));
    expect(refunds.filter((row) => row.kind === 'refund')).toHaveLength(2);
    expect(await db().select().from(messages).where(eq(messages.accountId, owner.accountId))).toEqual([]);
  });
});

describe('phones of another account', () => {
  it('are invisible: 404 NOT_FOUND on read, update and delete, absent from the list', async () => {
    const other = await createTestAccount(db());
    const params = { id: account.phoneId };
    const read = await call(getOne, { params, apiKey: other.apiKey });
    expect(read.status).toBe(404);
    expect(read.body.code).toBe('NOT_FOUND');
    const patched = await call(PATCH, { method: 'PATCH', params, body: { label: 'mine' }, apiKey: other.apiKey });
    expect(patched.status).toBe(404);
    const deleted = await call(DELETE, { method: 'DELETE', params, apiKey: other.apiKey });
    expect(deleted.status).toBe(404);
    const listed = await call(list, { apiKey: other.apiKey });
    expect(listed.body.data.map((p: { id: string }) => p.id)).toEqual([other.phoneId]);
    const filtered = await call(list, {
      path: `/api/v1/phones?group_id=${account.defaultGroupId}`,
      apiKey: other.apiKey,
    });
    expect(filtered.body.data).toEqual([]);
    expect((await call(getOne, { params, apiKey: account.apiKey })).body.label).not.toBe('mine');
  });
});

describeAuthCases('POST /api/v1/phones', {
  handler: POST,
  request: () => ({ body: { phone: testNumber() } }),
  accepts: 'account',
  fixture,
});
describeAuthCases('GET /api/v1/phones', { handler: list, request: {}, accepts: 'account', fixture });
describeAuthCases('GET /api/v1/phones/{id}', {
  handler: getOne,
  request: () => ({ params: { id: account.phoneId } }),
  accepts: 'account',
  fixture,
});
describeAuthCases('PATCH /api/v1/phones/{id}', {
  handler: PATCH,
  request: () => ({ method: 'PATCH', params: { id: account.phoneId }, body: { label: 'x' } }),
  accepts: 'account',
  fixture,
});
describeAuthCases('DELETE /api/v1/phones/{id}', {
  handler: DELETE,
  request: () => ({ method: 'DELETE', params: { id: account.phoneId } }),
  accepts: 'account',
  fixture,
});
