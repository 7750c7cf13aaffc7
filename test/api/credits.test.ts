import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { GET as balance } from '@/app/api/v1/credits/balance/route';
import { GET as balanceHistory } from '@/app/api/v1/credits/balance-history/route';
import { GET as ledger } from '@/app/api/v1/credits/ledger/route';
import { POST as transfer } from '@/app/api/v1/credits/transfer/route';
import { DELETE as deleteGroup } from '@/app/api/v1/phone-groups/[id]/route';
import { POST as createGroup } from '@/app/api/v1/phone-groups/route';
import { creditLedger, phoneGroups } from '@/db/schema';
import { moveCredits } from '@/lib/credits/ledger';
import { describeAuthCases } from '../auth-cases';
import { createTestAccount, sharedTestAccount } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

const { account, fixture } = sharedTestAccount(db, { plan: 'pro' });

async function newGroup(apiKey: string, name = `G ${crypto.randomUUID().slice(0, 8)}`): Promise<number> {
  const res = await call(createGroup, { body: { name }, apiKey });
  expect(res.status).toBe(201);
  return res.body.id;
}

function send(apiKey: string, body: unknown) {
  return call(transfer, { body, apiKey });
}

/** Every group's cached balance against the sum of its ledger rows. */
async function balancesAgainstLedger(accountId: string) {
  const groups = await db()
    .select({
      id: phoneGroups.id,
      balance: phoneGroups.balance,
      ledgerSum:
        sql<number>`(select coalesce(sum(amount), 0) from credit_ledger l where l.account_id = phone_groups.account_id and l.group_id = phone_groups.id)`.mapWith(
          Number,
        ),
    })
    .from(phoneGroups)
    .where(eq(phoneGroups.accountId, accountId));
  return groups;
}

describe('GET /api/v1/credits/balance', () => {
  it('lists every group’s balance with the total, the starter credits in the default group', async () => {
    const owner = await createTestAccount(db(), { plan: 'pro' });
    const sales = await newGroup(owner.apiKey, 'Sales');
    await send(owner.apiKey, { to_group: sales, amount: 30 });
    const res = await call(balance, { apiKey: owner.apiKey });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      data: [
        { group_id: owner.defaultGroupId, name: 'Default', balance: 70 },
        { group_id: sales, name: 'Sales', balance: 30 },
      ],
      total: 100,
    });
  });

  it('answers one group’s balance for ?group_id', async () => {
    const res = await call(balance, {
      path: `/api/v1/credits/balance?group_id=${account.defaultGroupId}`,
      apiKey: account.apiKey,
    });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ group_id: account.defaultGroupId, name: 'Default', balance: expect.any(Number) });
  });

  it('answers 404 GROUP_NOT_FOUND for an unknown group', async () => {
    const res = await call(balance, { path: '/api/v1/credits/balance?group_id=2147483647', apiKey: account.apiKey });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('GROUP_NOT_FOUND');
  });

  it.each(['abc', '1.5', '-1', '0', '2147483648'])('answers 400 VALIDATION_ERROR for ?group_id=%s', async (value) => {
    const res = await call(balance, { path: `/api/v1/credits/balance?group_id=${value}`, apiKey: account.apiKey });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });
});

describe('POST /api/v1/credits/transfer', () => {
  it('moves credits from the default group by default, as a pair of ledger rows', async () => {
    const owner = await createTestAccount(db(), { plan: 'pro' });
    const target = await newGroup(owner.apiKey);
    const res = await send(owner.apiKey, { to_group: target, amount: 25 });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      transfer_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      from_group: { group_id: owner.defaultGroupId, balance: 75 },
      to_group: { group_id: target, balance: 25 },
      amount: 25,
    });
    const rows = await db().select().from(creditLedger).where(eq(creditLedger.transferId, res.body.transfer_id));
    expect(rows.map((r) => [r.groupId, r.kind, r.amount, r.balanceAfter]).sort()).toEqual(
      [
        [owner.defaultGroupId, 'transfer_out', -25, 75],
        [target, 'transfer_in', 25, 25],
      ].sort(),
    );
  });

  it('moves credits between two named groups, back to the default group too', async () => {
    const owner = await createTestAccount(db(), { plan: 'pro' });
    const a = await newGroup(owner.apiKey);
    const b = await newGroup(owner.apiKey);
    await send(owner.apiKey, { to_group: a, amount: 50 });
    const res = await send(owner.apiKey, { from_group: a, to_group: b, amount: 20 });
    expect(res.body).toMatchObject({
      from_group: { group_id: a, balance: 30 },
      to_group: { group_id: b, balance: 20 },
    });
    const back = await send(owner.apiKey, { from_group: b, to_group: owner.defaultGroupId, amount: 20 });
    expect(back.body.to_group).toEqual({ group_id: owner.defaultGroupId, balance: 70 });
  });

  it('answers 400 INSUFFICIENT_CREDITS and moves nothing when the source is short', async () => {
    const owner = await createTestAccount(db(), { plan: 'pro' });
    const target = await newGroup(owner.apiKey);
    const res = await send(owner.apiKey, { to_group: target, amount: 101 });
    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({
      code: 'INSUFFICIENT_CREDITS',
      group_id: owner.defaultGroupId,
      balance: 100,
      required: 101,
      detail: `Group “Default” (${owner.defaultGroupId}) has 100 credit(s); 101 needed.`,
    });
    const after = await call(balance, { apiKey: owner.apiKey });
    expect(after.body.data.map((g: { balance: number }) => g.balance)).toEqual([100, 0]);
    const rows = await db().select().from(creditLedger).where(eq(creditLedger.accountId, owner.accountId));
    expect(rows.map((r) => r.kind)).toEqual(['starter_grant']);
  });

  it('answers 400 VALIDATION_ERROR when the source is the destination', async () => {
    const target = await newGroup(account.apiKey);
    for (const body of [
      { from_group: target, to_group: target, amount: 1 },
      { to_group: account.defaultGroupId, amount: 1 },
    ]) {
      const res = await send(account.apiKey, body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    }
  });

  it('answers 404 GROUP_NOT_FOUND for an unknown source or destination', async () => {
    const target = await newGroup(account.apiKey);
    for (const body of [
      { to_group: 2147483647, amount: 1 },
      { from_group: 2147483647, to_group: target, amount: 1 },
    ]) {
      const res = await send(account.apiKey, body);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('GROUP_NOT_FOUND');
    }
  });

  it('answers 400 VALIDATION_ERROR when the destination would pass the largest balance', async () => {
    const owner = await createTestAccount(db(), { plan: 'pro' });
    const full = await newGroup(owner.apiKey);
    await moveCredits(db(), {
      accountId: owner.accountId,
      groupId: full,
      amount: 2_147_483_600,
      kind: 'operator_grant',
    });
    const res = await send(owner.apiKey, { to_group: full, amount: 100 });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });

  it.each([
    ['a zero amount', { to_group: 1, amount: 0 }],
    ['a negative amount', { to_group: 1, amount: -5 }],
    ['a fractional amount', { to_group: 1, amount: 1.5 }],
    ['a string amount', { to_group: 1, amount: '10' }],
    ['an amount over a billion', { to_group: 1, amount: 1_000_000_001 }],
    ['an amount past 2^53', { to_group: 1, amount: 1e300 }],
    ['a missing amount', { to_group: 1 }],
    ['a missing to_group', { amount: 1 }],
    ['a string to_group', { to_group: '1', amount: 1 }],
    ['a fractional from_group', { from_group: 1.5, to_group: 1, amount: 1 }],
    ['a null to_group', { to_group: null, amount: 1 }],
  ])('answers 400 VALIDATION_ERROR for %s', async (_name, body) => {
    const res = await send(account.apiKey, body);
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });

  it('never overdraws under 50 concurrent transfers and 50 message-sized debits', async () => {
    const owner = await createTestAccount(db(), { plan: 'pro' });
    const a = await newGroup(owner.apiKey);
    const b = await newGroup(owner.apiKey);
    await send(owner.apiKey, { to_group: a, amount: 20 });
    const groups = [owner.defaultGroupId, a, b];
    const transfers = Array.from({ length: 50 }, (_, i) => {
      const from = groups[i % 3] as number;
      const to = groups[(i + 1 + (i % 2)) % 3] as number;
      return send(owner.apiKey, { from_group: from, to_group: to, amount: 7 });
    });
    const debits = Array.from({ length: 50 }, (_, i) =>
      db().transaction((tx) =>
        moveCredits(tx, {
          accountId: owner.accountId,
          groupId: groups[i % 3] as number,
          amount: -1,
          kind: 'message_charge',
          messageId: crypto.randomUUID(),
        }),
      ),
    );
    const [transferResults, debitResults] = await Promise.all([Promise.all(transfers), Promise.allSettled(debits)]);
    for (const res of transferResults) {
      expect([200, 400]).toContain(res.status);
      if (res.status === 400) expect(res.body.code).toBe('INSUFFICIENT_CREDITS');
    }
    for (const result of debitResults) {
      if (result.status === 'rejected') expect(result.reason.code).toBe('INSUFFICIENT_CREDITS');
    }
    const debited = debitResults.filter((r) => r.status === 'fulfilled').length;
    const groupsAfter = await balancesAgainstLedger(owner.accountId);
    for (const group of groupsAfter) {
      expect(group.balance).toBeGreaterThanOrEqual(0);
      expect(group.balance).toBe(group.ledgerSum);
    }
    expect(groupsAfter.reduce((sum, g) => sum + g.balance, 0)).toBe(100 - debited);
    expect(transferResults.some((r) => r.status === 200)).toBe(true);
  });
});

describe('GET /api/v1/credits/ledger', () => {
  it('lists movements newest first, page by page, with their shape', async () => {
    const owner = await createTestAccount(db(), { plan: 'pro' });
    const target = await newGroup(owner.apiKey);
    const moved = await send(owner.apiKey, { to_group: target, amount: 10 });
    const first = await call(ledger, { path: '/api/v1/credits/ledger?limit=2', apiKey: owner.apiKey });
    expect(first.status).toBe(200);
    expect(first.body.data).toHaveLength(2);
    for (const row of first.body.data) {
      expect(row).toEqual({
        id: expect.any(Number),
        group_id: expect.any(Number),
        kind: expect.stringMatching(/^transfer_(in|out)$/),
        amount: expect.any(Number),
        balance_after: expect.any(Number),
        message_id: null,
        transfer_id: moved.body.transfer_id,
        note: null,
        created_at: expect.stringMatching(/Z$/),
      });
    }
    const second = await call(ledger, {
      path: `/api/v1/credits/ledger?limit=2&cursor=${first.body.next_cursor}`,
      apiKey: owner.apiKey,
    });
    expect(second.body.data.map((r: { kind: string }) => r.kind)).toEqual(['starter_grant']);
    expect(second.body.next_cursor).toBeNull();
  });

  it('filters by group, also a deleted one', async () => {
    const owner = await createTestAccount(db(), { plan: 'pro' });
    const target = await newGroup(owner.apiKey);
    await send(owner.apiKey, { to_group: target, amount: 10 });
    await call(deleteGroup, { method: 'DELETE', params: { id: String(target) }, apiKey: owner.apiKey });
    const res = await call(ledger, { path: `/api/v1/credits/ledger?group_id=${target}`, apiKey: owner.apiKey });
    expect(res.status).toBe(200);
    expect(res.body.data.map((r: { kind: string; amount: number }) => [r.kind, r.amount])).toEqual([
      ['group_merge_out', -10],
      ['transfer_in', 10],
    ]);
    const sums = await balancesAgainstLedger(owner.accountId);
    expect(sums).toEqual([{ id: owner.defaultGroupId, balance: 100, ledgerSum: 100 }]);
  });

  it('answers 404 GROUP_NOT_FOUND for a group the account never had', async () => {
    const res = await call(ledger, { path: '/api/v1/credits/ledger?group_id=2147483647', apiKey: account.apiKey });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('GROUP_NOT_FOUND');
  });

  it.each([
    'group_id=x',
    'limit=1000',
    'cursor=%%%',
    `cursor=${Buffer.from('["2026-01-01T00:00:00Z","1.5"]').toString('base64url')}`,
  ])('answers 400 VALIDATION_ERROR for ?%s', async (query) => {
    const res = await call(ledger, { path: `/api/v1/credits/ledger?${query}`, apiKey: account.apiKey });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });
});

describe('GET /api/v1/credits/ledger filters', () => {
  it('filters by kind and by time, combined with the group and with paging', async () => {
    const owner = await createTestAccount(db(), { plan: 'pro' });
    const target = await newGroup(owner.apiKey);
    for (const amount of [1, 2, 3]) await send(owner.apiKey, { to_group: target, amount });
    const ins = await call(ledger, { path: '/api/v1/credits/ledger?kind=transfer_in&limit=2', apiKey: owner.apiKey });
    expect(ins.body.data.map((r: { amount: number }) => r.amount)).toEqual([3, 2]);
    const rest = await call(ledger, {
      path: `/api/v1/credits/ledger?kind=transfer_in&limit=2&cursor=${ins.body.next_cursor}`,
      apiKey: owner.apiKey,
    });
    expect(rest.body).toEqual({
      data: [expect.objectContaining({ kind: 'transfer_in', amount: 1 })],
      next_cursor: null,
    });
    const outOfDefault = await call(ledger, {
      path: `/api/v1/credits/ledger?kind=transfer_out&group_id=${target}`,
      apiKey: owner.apiKey,
    });
    expect(outOfDefault.body.data).toEqual([]);

    // Backdate the starter grant: the time filters see it on its own side.
    const weekAgo = new Date(Date.now() - 7 * 86_400_000);
    await db()
      .update(creditLedger)
      .set({ createdAt: weekAgo })
      .where(sql`${creditLedger.accountId} = ${owner.accountId} and ${creditLedger.kind} = 'starter_grant'`);
    const since = encodeURIComponent(new Date(Date.now() - 86_400_000).toISOString());
    const recent = await call(ledger, { path: `/api/v1/credits/ledger?created_after=${since}`, apiKey: owner.apiKey });
    expect(recent.body.data).toHaveLength(6);
    const older = await call(ledger, { path: `/api/v1/credits/ledger?created_before=${since}`, apiKey: owner.apiKey });
    expect(older.body.data.map((r: { kind: string }) => r.kind)).toEqual(['starter_grant']);
    // An offset with an unencoded + (a space once decoded) still reads as a time.
    const plus = await call(ledger, {
      path: '/api/v1/credits/ledger?created_before=2000-01-01T00:00:00+02:00',
      apiKey: owner.apiKey,
    });
    expect(plus.body.data).toEqual([]);
  });

  it.each([
    ['kind=gift', 'kind'],
    ['created_after=yesterday', 'created_after'],
    ['created_before=2026-13-01T00:00:00Z', 'created_before'],
  ])('answers 400 naming the field for ?%s', async (query, field) => {
    const res = await call(ledger, { path: `/api/v1/credits/ledger?${query}`, apiKey: account.apiKey });
    expect(res.status).toBe(400);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(field);
  });
});

describe('GET /api/v1/credits/balance-history', () => {
  const DAY = 86_400_000;
  const dayOf = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY).toISOString().slice(0, 10);

  it('answers each day’s closing balance, of the account and of one group, every day present', async () => {
    const owner = await createTestAccount(db(), { plan: 'pro' });
    const sales = await newGroup(owner.apiKey, 'Sales');
    await send(owner.apiKey, { to_group: sales, amount: 30 });
    const at = (daysAgo: number) => new Date(Date.now() - daysAgo * DAY);
    await db()
      .update(creditLedger)
      .set({ createdAt: at(10) })
      .where(sql`${creditLedger.accountId} = ${owner.accountId} and ${creditLedger.kind} = 'starter_grant'`);
    await db()
      .update(creditLedger)
      .set({ createdAt: at(3) })
      .where(sql`${creditLedger.accountId} = ${owner.accountId} and ${creditLedger.kind} like 'transfer_%'`);

    const total = await call(balanceHistory, { path: '/api/v1/credits/balance-history', apiKey: owner.apiKey });
    expect(total.status).toBe(200);
    expect(total.body.days).toHaveLength(30);
    expect(total.body.days[0].date).toBe(dayOf(29));
    expect(total.body.days.at(-1)).toEqual({ date: dayOf(0), balance: 100 });
    const byDate = (days: Array<{ date: string; balance: number }>) =>
      Object.fromEntries(days.map((d) => [d.date, d.balance]));
    const all = byDate(total.body.days);
    expect([all[dayOf(11)], all[dayOf(10)], all[dayOf(3)]]).toEqual([0, 100, 100]);

    const ofDefault = await call(balanceHistory, {
      path: `/api/v1/credits/balance-history?days=12&group_id=${owner.defaultGroupId}`,
      apiKey: owner.apiKey,
    });
    expect(ofDefault.body.days).toHaveLength(12);
    const def = byDate(ofDefault.body.days);
    expect([def[dayOf(11)], def[dayOf(10)], def[dayOf(4)], def[dayOf(3)], def[dayOf(0)]]).toEqual([
      0, 100, 100, 70, 70,
    ]);
    const ofSales = await call(balanceHistory, {
      path: `/api/v1/credits/balance-history?days=5&group_id=${sales}`,
      apiKey: owner.apiKey,
    });
    expect(ofSales.body.days.map((d: { balance: number }) => d.balance)).toEqual([0, 30, 30, 30, 30]);
  });

  it('answers 404 GROUP_NOT_FOUND for another account’s group, and 400 for days out of range', async () => {
    const other = await createTestAccount(db(), { plan: 'pro' });
    const theirs = await call(balanceHistory, {
      path: `/api/v1/credits/balance-history?group_id=${account.defaultGroupId}`,
      apiKey: other.apiKey,
    });
    expect(theirs.status).toBe(404);
    expect(theirs.body.code).toBe('GROUP_NOT_FOUND');
    for (const days of ['0', '91', 'x']) {
      const res = await call(balanceHistory, {
        path: `/api/v1/credits/balance-history?days=${days}`,
        apiKey: other.apiKey,
      });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].path).toBe('days');
    }
  });
});

describe('credits of another account', () => {
  it('are out of reach: 404 GROUP_NOT_FOUND for its groups, nothing of it listed', async () => {
    const other = await createTestAccount(db(), { plan: 'pro' });
    const mine = await newGroup(account.apiKey);
    const read = await call(balance, {
      path: `/api/v1/credits/balance?group_id=${account.defaultGroupId}`,
      apiKey: other.apiKey,
    });
    expect(read.status).toBe(404);
    expect(read.body.code).toBe('GROUP_NOT_FOUND');
    const theirs = await newGroup(other.apiKey);
    for (const body of [
      { to_group: mine, amount: 1 },
      { from_group: account.defaultGroupId, to_group: theirs, amount: 1 },
    ]) {
      const res = await send(other.apiKey, body);
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('GROUP_NOT_FOUND');
    }
    const history = await call(ledger, {
      path: `/api/v1/credits/ledger?group_id=${account.defaultGroupId}`,
      apiKey: other.apiKey,
    });
    expect(history.body.code).toBe('GROUP_NOT_FOUND');
    const all = await call(balance, { apiKey: other.apiKey });
    expect(all.body.data.map((g: { group_id: number }) => g.group_id).sort()).toEqual(
      [other.defaultGroupId, theirs].sort(),
    );
    const rows = await call(ledger, { apiKey: other.apiKey });
    expect(rows.body.data.every((r: { group_id: number }) => [other.defaultGroupId, theirs].includes(r.group_id))).toBe(
      true,
    );
  });
});

describeAuthCases('GET /api/v1/credits/balance', { handler: balance, request: {}, accepts: 'account', fixture });
describeAuthCases('POST /api/v1/credits/transfer', {
  handler: transfer,
  request: () => ({ body: { to_group: account.defaultGroupId, amount: 1 } }),
  accepts: 'account',
  fixture,
});
describeAuthCases('GET /api/v1/credits/ledger', { handler: ledger, request: {}, accepts: 'account', fixture });
