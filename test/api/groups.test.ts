import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { POST as transfer } from '@/app/api/v1/credits/transfer/route';
import { DELETE, GET as getOne, PATCH } from '@/app/api/v1/phone-groups/[id]/route';
import { GET as list, POST } from '@/app/api/v1/phone-groups/route';
import { POST as createPhoneRoute } from '@/app/api/v1/phones/route';
import { creditLedger, messages, phoneGroups, phones } from '@/db/schema';
import { moveCredits } from '@/lib/credits/ledger';
import { sendMessage } from '@/lib/messages/send';
import { createPhone } from '@/lib/phones/create';
import { describeAuthCases } from '../auth-cases';
import { createTestAccount, sharedTestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

const { account, fixture } = sharedTestAccount(db, { plan: 'pro' });

function create(apiKey: string, body: unknown) {
  return call(POST, { body, apiKey });
}

function rename(apiKey: string, id: number | string, body: unknown) {
  return call(PATCH, { method: 'PATCH', params: { id: String(id) }, body, apiKey });
}

function remove(apiKey: string, id: number | string) {
  return call(DELETE, { method: 'DELETE', params: { id: String(id) }, apiKey });
}

const uniqueName = () => `Group ${crypto.randomUUID().slice(0, 8)}`;

describe('POST /api/v1/phone-groups', () => {
  it('answers 201 with the group, trimmed, empty and without credits', async () => {
    const res = await create(account.apiKey, { name: '  Sales team  ' });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(Number),
      name: 'Sales team',
      is_default: false,
      balance: 0,
      phone_count: 0,
      messaging_service_sid: expect.stringMatching(/^MG[0-9a-f]{32}$/),
      sending: {},
      created_at: expect.stringMatching(/Z$/),
    });
  });

  it('answers 409 DUPLICATE_NAME for a name that differs only in case and spaces', async () => {
    const name = uniqueName();
    expect((await create(account.apiKey, { name })).status).toBe(201);
    const res = await create(account.apiKey, { name: `  ${name.toUpperCase()} ` });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('DUPLICATE_NAME');
  });

  it('lets two accounts use the same name', async () => {
    const other = await createTestAccount(db());
    const name = uniqueName();
    expect((await create(account.apiKey, { name })).status).toBe(201);
    expect((await create(other.apiKey, { name })).status).toBe(201);
  });

  it.each([
    ['the name Default', { name: 'Default' }],
    ['the name default in any case and spacing', { name: '  dEfAuLt ' }],
    ['is_default true', { name: uniqueName(), is_default: true }],
  ])('answers 400 DEFAULT_GROUP_LOCKED for %s', async (_name, body) => {
    const res = await create(account.apiKey, body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('DEFAULT_GROUP_LOCKED');
  });

  it('accepts is_default false', async () => {
    const res = await create(account.apiKey, { name: uniqueName(), is_default: false });
    expect(res.status).toBe(201);
    expect(res.body.is_default).toBe(false);
  });

  it('answers 403 PLAN_LIMIT_REACHED past the plan maximum, the default group counting', async () => {
    const free = await createTestAccount(db());
    expect((await create(free.apiKey, { name: 'A' })).status).toBe(201);
    expect((await create(free.apiKey, { name: 'B' })).status).toBe(201);
    const res = await create(free.apiKey, { name: 'C' });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('PLAN_LIMIT_REACHED');
  });

  it('holds the plan maximum under 20 concurrent creates', async () => {
    const free = await createTestAccount(db());
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => create(free.apiKey, { name: `G${i}` })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(2);
    expect(results.filter((r) => r.status !== 201).every((r) => r.body.code === 'PLAN_LIMIT_REACHED')).toBe(true);
    const groups = await db().select().from(phoneGroups).where(eq(phoneGroups.accountId, free.accountId));
    expect(groups).toHaveLength(3);
  });

  it('makes one group of 10 concurrent creates with one name', async () => {
    const owner = await createTestAccount(db(), { plan: 'pro' });
    const results = await Promise.all(Array.from({ length: 10 }, () => create(owner.apiKey, { name: 'Same' })));
    expect(results.filter((r) => r.status === 201)).toHaveLength(1);
    expect(results.filter((r) => r.status !== 201).every((r) => r.body.code === 'DUPLICATE_NAME')).toBe(true);
  });

  it.each([
    ['an empty name', { name: '' }],
    ['a blank name', { name: '    ' }],
    ['a missing name', {}],
    ['a huge name', { name: 'n'.repeat(101) }],
    ['a numeric name', { name: 42 }],
    ['a string is_default', { name: 'x', is_default: 'yes' }],
  ])('answers 400 VALIDATION_ERROR for %s', async (_name, body) => {
    const res = await create(account.apiKey, body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });
});

describe('GET /api/v1/phone-groups', () => {
  it('lists groups newest first with balance and phone count, page by page', async () => {
    const owner = await createTestAccount(db(), { plan: 'pro', credits: 7 });
    await create(owner.apiKey, { name: 'One' });
    await create(owner.apiKey, { name: 'Two' });
    const first = await call(list, { path: '/api/v1/phone-groups?limit=2', apiKey: owner.apiKey });
    expect(first.status).toBe(200);
    expect(first.body.data.map((g: { name: string }) => g.name)).toEqual(['Two', 'One']);
    const second = await call(list, {
      path: `/api/v1/phone-groups?limit=2&cursor=${first.body.next_cursor}`,
      apiKey: owner.apiKey,
    });
    expect(second.body).toEqual({
      data: [expect.objectContaining({ name: 'Default', is_default: true, balance: 7, phone_count: 1 })],
      next_cursor: null,
    });
  });
});

describe('GET /api/v1/phone-groups/{id}', () => {
  it('reads a group', async () => {
    const res = await call(getOne, { params: { id: String(account.defaultGroupId) }, apiKey: account.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: account.defaultGroupId, name: 'Default', is_default: true, phone_count: 1 });
  });

  it.each(['abc', '1.5', '0', '-3', '99999999999', '1e400', ' '])(
    'answers 400 VALIDATION_ERROR for id %j',
    async (id) => {
      const res = await call(getOne, { params: { id }, apiKey: account.apiKey });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    },
  );

  it('answers 404 GROUP_NOT_FOUND for an unknown id', async () => {
    const res = await call(getOne, { params: { id: '2147483647' }, apiKey: account.apiKey });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('GROUP_NOT_FOUND');
  });
});

describe('PATCH /api/v1/phone-groups/{id}', () => {
  it('renames a group, also to another case of its own name', async () => {
    const created = await create(account.apiKey, { name: uniqueName() });
    const name = uniqueName();
    const res = await rename(account.apiKey, created.body.id, { name: ` ${name} ` });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: created.body.id, name });
    const recased = await rename(account.apiKey, created.body.id, { name: name.toUpperCase() });
    expect(recased.body.name).toBe(name.toUpperCase());
  });

  it('answers 409 DUPLICATE_NAME for another group’s name', async () => {
    const taken = uniqueName();
    await create(account.apiKey, { name: taken });
    const created = await create(account.apiKey, { name: uniqueName() });
    const res = await rename(account.apiKey, created.body.id, { name: taken.toLowerCase() });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('DUPLICATE_NAME');
  });

  it('answers 400 DEFAULT_GROUP_LOCKED for the default group, the name Default and is_default', async () => {
    const created = await create(account.apiKey, { name: uniqueName() });
    for (const [id, body] of [
      [account.defaultGroupId, { name: 'Main' }],
      [account.defaultGroupId, { name: 'Default' }],
      [created.body.id, { name: 'DEFAULT' }],
      [created.body.id, { is_default: true }],
    ] as const) {
      const res = await rename(account.apiKey, id, body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('DEFAULT_GROUP_LOCKED');
    }
  });

  it.each([
    ['no name', {}],
    ['an empty name', { name: '' }],
    ['a huge name', { name: 'z'.repeat(1000) }],
    ['a name that is not a string', { name: ['a'] }],
  ])('answers 400 VALIDATION_ERROR for %s', async (_name, body) => {
    const created = await create(account.apiKey, { name: uniqueName() });
    const res = await rename(account.apiKey, created.body.id, body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });
});

describe('DELETE /api/v1/phone-groups/{id}', () => {
  it('moves the phones and the credits to the default group, recorded as a merge pair', async () => {
    const owner = await createTestAccount(db(), { plan: 'pro', credits: 5 });
    const group = (await create(owner.apiKey, { name: 'Doomed' })).body;
    await moveCredits(db(), { accountId: owner.accountId, groupId: group.id, amount: 40, kind: 'operator_grant' });
    const phone = await createPhone(db(), owner.accountId, { phone: testNumber(), groupId: group.id });
    await sendMessage(db(), owner.accountId, {
      origin: 'api',
      from: phone.phone,
      to: testNumber(),
      content: 'pending',
    });

    const res = await remove(owner.apiKey, group.id);
    expect(res.status).toBe(204);

    const [moved] = await db().select().from(phones).where(eq(phones.id, phone.id));
    expect(moved?.groupId).toBe(owner.defaultGroupId);
    const [defaultGroup] = await db().select().from(phoneGroups).where(eq(phoneGroups.id, owner.defaultGroupId));
    expect(defaultGroup?.balance).toBe(5 + 39);
    const merge = await db()
      .select()
      .from(creditLedger)
      .where(and(eq(creditLedger.accountId, owner.accountId)));
    const out = merge.find((row) => row.kind === 'group_merge_out');
    const into = merge.find((row) => row.kind === 'group_merge_in');
    expect(out).toMatchObject({ groupId: group.id, amount: -39, balanceAfter: 0 });
    expect(into).toMatchObject({ groupId: owner.defaultGroupId, amount: 39, balanceAfter: 44 });
    expect(out?.transferId).toBe(into?.transferId);
    const [message] = await db().select().from(messages).where(eq(messages.phoneId, phone.id));
    expect(message?.groupId).toBe(owner.defaultGroupId);
    expect((await call(getOne, { params: { id: String(group.id) }, apiKey: owner.apiKey })).status).toBe(404);
    expect((await remove(owner.apiKey, group.id)).body.code).toBe('GROUP_NOT_FOUND');
  });

  it('deletes an empty group without ledger rows', async () => {
    const owner = await createTestAccount(db(), { plan: 'pro' });
    const group = (await create(owner.apiKey, { name: 'Empty' })).body;
    expect((await remove(owner.apiKey, group.id)).status).toBe(204);
    const rows = await db().select().from(creditLedger).where(eq(creditLedger.groupId, group.id));
    expect(rows).toEqual([]);
  });

  it('answers 400 DEFAULT_GROUP_LOCKED for the default group', async () => {
    const res = await remove(account.apiKey, account.defaultGroupId);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('DEFAULT_GROUP_LOCKED');
  });

  it('frees a place under the plan', async () => {
    const free = await createTestAccount(db());
    const a = (await create(free.apiKey, { name: 'A' })).body;
    await create(free.apiKey, { name: 'B' });
    expect((await create(free.apiKey, { name: 'C' })).status).toBe(403);
    await remove(free.apiKey, a.id);
    expect((await create(free.apiKey, { name: 'C' })).status).toBe(201);
  });
});

describe('deleting a group while it is in use', () => {
  it('loses no credit and no phone to concurrent transfers and phone creates', async () => {
    const owner = await createTestAccount(db(), { plan: 'pro' });
    const doomed = (await create(owner.apiKey, { name: 'Busy' })).body.id as number;
    const transfers = Array.from({ length: 10 }, () =>
      call(transfer, { body: { to_group: doomed, amount: 3 }, apiKey: owner.apiKey }),
    );
    const phoneCreates = Array.from({ length: 5 }, () =>
      call(createPhoneRoute, { body: { phone: testNumber(), group_id: doomed }, apiKey: owner.apiKey }),
    );
    const [deleted, ...others] = await Promise.all([remove(owner.apiKey, doomed), ...transfers, ...phoneCreates]);
    expect(deleted?.status).toBe(204);
    for (const res of others) {
      expect([200, 201, 404]).toContain(res.status);
      if (res.status === 404) expect(res.body.code).toBe('GROUP_NOT_FOUND');
    }
    const groups = await db().select().from(phoneGroups).where(eq(phoneGroups.accountId, owner.accountId));
    expect(groups.map((g) => [g.id, g.balance])).toEqual([[owner.defaultGroupId, 100]]);
    const rows = await db().select().from(creditLedger).where(eq(creditLedger.accountId, owner.accountId));
    expect(rows.filter((r) => r.groupId === owner.defaultGroupId).reduce((sum, r) => sum + r.amount, 0)).toBe(100);
    const created = others.filter((res) => res.status === 201).length;
    const accountPhones = await db().select().from(phones).where(eq(phones.accountId, owner.accountId));
    expect(accountPhones).toHaveLength(1 + created);
    expect(accountPhones.every((p) => p.groupId === owner.defaultGroupId)).toBe(true);
  });
});

describe('groups of another account', () => {
  it('answer 404 GROUP_NOT_FOUND on read, rename and delete, and stay out of the list', async () => {
    const other = await createTestAccount(db());
    const mine = (await create(account.apiKey, { name: uniqueName() })).body;
    for (const id of [mine.id, account.defaultGroupId]) {
      const read = await call(getOne, { params: { id: String(id) }, apiKey: other.apiKey });
      expect(read.status).toBe(404);
      expect(read.body.code).toBe('GROUP_NOT_FOUND');
      expect((await rename(other.apiKey, id, { name: 'Stolen' })).body.code).toBe('GROUP_NOT_FOUND');
      expect((await remove(other.apiKey, id)).body.code).toBe('GROUP_NOT_FOUND');
    }
    const listed = await call(list, { apiKey: other.apiKey });
    expect(listed.body.data.map((g: { id: number }) => g.id)).toEqual([other.defaultGroupId]);
    expect((await call(getOne, { params: { id: String(mine.id) }, apiKey: account.apiKey })).body.name).toBe(mine.name);
  });
});

describeAuthCases('POST /api/v1/phone-groups', {
  handler: POST,
  request: () => ({ body: { name: uniqueName() } }),
  accepts: 'account',
  fixture,
});
describeAuthCases('GET /api/v1/phone-groups', { handler: list, request: {}, accepts: 'account', fixture });
describeAuthCases('GET /api/v1/phone-groups/{id}', {
  handler: getOne,
  request: () => ({ params: { id: String(account.defaultGroupId) } }),
  accepts: 'account',
  fixture,
});
describeAuthCases('PATCH /api/v1/phone-groups/{id}', {
  handler: PATCH,
  request: () => ({ method: 'PATCH', params: { id: String(account.defaultGroupId) }, body: { name: 'x' } }),
  accepts: 'account',
  fixture,
});
describeAuthCases('DELETE /api/v1/phone-groups/{id}', {
  handler: DELETE,
  request: () => ({ method: 'DELETE', params: { id: String(account.defaultGroupId) } }),
  accepts: 'account',
  fixture,
});
