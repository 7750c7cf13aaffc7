import { and, asc, eq, inArray } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { POST } from '@/app/api/v1/heartbeats/route';
import { GET as history } from '@/app/api/v1/phones/[id]/heartbeats/route';
import { devices, events, heartbeats, phones } from '@/db/schema';
import { generateKey } from '@/lib/auth/keys';
import { startFleetWork } from '@/lib/heartbeats/background';
import { sweepOfflinePhones } from '@/lib/heartbeats/sweep';
import { createPhone } from '@/lib/phones/create';
import { describeAuthCases } from '../auth-cases';
import { createTestAccount, sharedTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { until } from '../poll';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

const { account, fixture } = sharedTestAccount(db, { plan: 'pro' });

function beat(apiKey: string, body: unknown) {
  return call(POST, { body, apiKey });
}

async function phoneEvents(phoneIds: string[]) {
  const rows = await db()
    .select()
    .from(events)
    .where(inArray(events.type, ['phone.online', 'phone.offline']));
  return rows.filter((row) => phoneIds.includes((row.payload as { phone_id: string }).phone_id));
}

/** A phone of the account that went online `secondsAgo` seconds ago and has been silent since. */
async function silentOnlinePhone(owner: TestAccount, secondsAgo: number): Promise<string> {
  const phone = await createPhone(db(), owner.accountId, { phone: testNumber() });
  await db()
    .update(phones)
    .set({ status: 'online', lastHeartbeatAt: new Date(Date.now() - secondsAgo * 1000) })
    .where(eq(phones.id, phone.id));
  return phone.id;
}

describe('POST /api/v1/heartbeats', () => {
  it('marks the phone online with its battery, and emits phone.online once', async () => {
    const owner = await createTestAccount(db(), { plan: 'pro' });
    const res = await beat(owner.apiKey, { phone: owner.phone, status: 'online', battery: 80 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: owner.phoneId,
      phone: owner.phone,
      status: 'online',
      battery: 80,
      device_connected: true,
      last_heartbeat_at: expect.stringMatching(/Z$/),
    });
    const again = await beat(owner.apiKey, { phone: owner.phone, status: 'online' });
    expect(again.body).toMatchObject({ status: 'online', battery: 80 });
    const emitted = await phoneEvents([owner.phoneId]);
    expect(emitted).toHaveLength(1);
    expect(emitted[0]).toMatchObject({
      accountId: owner.accountId,
      type: 'phone.online',
      phone: owner.phone,
      payload: {
        phone_id: owner.phoneId,
        phone: owner.phone,
        status: 'online',
        battery: 80,
        last_heartbeat_at: res.body.last_heartbeat_at,
      },
    });
  });

  it('emits phone.offline when a heartbeat says offline, and phone.online when it comes back', async () => {
    const owner = await createTestAccount(db());
    await beat(owner.apiKey, { phone: owner.phone, status: 'online', battery: 50 });
    const off = await beat(owner.apiKey, { phone: owner.phone, status: 'offline', battery: 49 });
    expect(off.body).toMatchObject({ status: 'offline', battery: 49 });
    await beat(owner.apiKey, { phone: owner.phone, status: 'offline' });
    await beat(owner.apiKey, { phone: owner.phone, status: 'online', battery: null });
    const emitted = await phoneEvents([owner.phoneId]);
    expect(emitted.map((e) => e.type).sort()).toEqual(['phone.offline', 'phone.online', 'phone.online']);
  });

  it('reports a transition once under 10 concurrent heartbeats', async () => {
    const owner = await createTestAccount(db());
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => beat(owner.apiKey, { phone: owner.phone, status: 'online', battery: i })),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    expect(await phoneEvents([owner.phoneId])).toHaveLength(1);
  });

  it('reports every transition once when concurrent heartbeats flip the status, steady ones taking the fast path', async () => {
    const owner = await createTestAccount(db());
    const statuses = Array.from({ length: 24 }, (_, i) => (i % 3 === 0 ? 'offline' : 'online'));
    const results = await Promise.all(
      statuses.map((status, i) => beat(owner.apiKey, { phone: owner.phone, status, battery: i })),
    );
    expect(results.every((r) => r.status === 200)).toBe(true);
    // Heartbeat rows are numbered after the phone's lock is taken: their order is the order applied.
    const applied = await db()
      .select({ status: heartbeats.status })
      .from(heartbeats)
      .where(eq(heartbeats.phoneId, owner.phoneId))
      .orderBy(asc(heartbeats.id));
    expect(applied).toHaveLength(statuses.length);
    let previous = 'unknown';
    let transitions = 0;
    for (const { status } of applied) {
      if (status !== previous) transitions += 1;
      previous = status;
    }
    const emitted = await phoneEvents([owner.phoneId]);
    expect(emitted).toHaveLength(transitions);
    const [row] = await db().select({ status: phones.status }).from(phones).where(eq(phones.id, owner.phoneId));
    expect(row?.status).toBe(previous);
  });

  it('takes the device key for the device’s own number', async () => {
    const owner = await createTestAccount(db());
    const res = await beat(owner.deviceKey, { phone: owner.phone, status: 'online', battery: 12 });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: owner.phoneId, status: 'online', battery: 12 });
  });

  it('answers 403 FORBIDDEN for a device key reporting another number of its account', async () => {
    const owner = await createTestAccount(db(), { plan: 'pro' });
    const second = await createPhone(db(), owner.accountId, { phone: testNumber() });
    const res = await beat(owner.deviceKey, { phone: second.phone, status: 'online' });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
  });

  it('answers 403 FORBIDDEN for a device not yet activated', async () => {
    const key = generateKey('device');
    const number = testNumber();
    await db()
      .insert(devices)
      .values({ phoneNumber: number, status: 'verified', keyHash: key.hash, keyPrefix: key.prefix });
    const res = await beat(key.key, { phone: number, status: 'online' });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
  });

  it('answers 403 FORBIDDEN for a number not registered to the account', async () => {
    const res = await beat(account.apiKey, { phone: testNumber(), status: 'online' });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
  });

  it.each([
    ['an unknown status', { status: 'sleeping' }],
    ['a missing status', { status: undefined }],
    ['a status in capitals', { status: 'ONLINE' }],
    ['a battery over 100', { battery: 101 }],
    ['a negative battery', { battery: -1 }],
    ['a fractional battery', { battery: 50.5 }],
    ['a battery as a string', { battery: '50' }],
    ['a bad number', { phone: '+1555' }],
    ['a missing number', { phone: undefined }],
    ['a number as a number', { phone: 14155550100 }],
  ])('answers 400 VALIDATION_ERROR for %s', async (_name, change) => {
    const res = await beat(account.apiKey, { phone: account.phone, status: 'online', battery: 50, ...change });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
  });
});

describe('the offline sweep', () => {
  it('marks silent online phones offline once, emitting phone.offline once, and leaves the others', async () => {
    const owner = await createTestAccount(db(), { plan: 'pro' });
    const silent = await silentOnlinePhone(owner, 301);
    const fresh = await silentOnlinePhone(owner, 10);
    expect(await sweepOfflinePhones(db())).toBeGreaterThanOrEqual(1);
    expect(await sweepOfflinePhones(db())).toBe(0);
    const rows = await db()
      .select()
      .from(phones)
      .where(inArray(phones.id, [silent, fresh]));
    expect(Object.fromEntries(rows.map((r) => [r.id, r.status]))).toEqual({ [silent]: 'offline', [fresh]: 'online' });
    const emitted = await phoneEvents([silent, fresh]);
    expect(emitted).toHaveLength(1);
    expect(emitted[0]).toMatchObject({ type: 'phone.offline', payload: { phone_id: silent, status: 'offline' } });
  });

  it('reports each transition once when several sweeps run at the same time', async () => {
    const owner = await createTestAccount(db(), { plan: 'pro' });
    const silent = [await silentOnlinePhone(owner, 400), await silentOnlinePhone(owner, 500)];
    const counts = await Promise.all(Array.from({ length: 5 }, () => sweepOfflinePhones(db())));
    expect(counts.reduce((a, b) => a + b, 0)).toBe(2);
    const emitted = await phoneEvents(silent);
    expect(emitted.map((e) => (e.payload as { phone_id: string }).phone_id).sort()).toEqual([...silent].sort());
  });

  it('goes by HEARTBEAT_TIMEOUT_S and the time it is given', async () => {
    const owner = await createTestAccount(db(), { plan: 'pro' });
    const phoneId = await silentOnlinePhone(owner, 60);
    await sweepOfflinePhones(db());
    expect((await db().select().from(phones).where(eq(phones.id, phoneId)))[0]?.status).toBe('online');
    await sweepOfflinePhones(db(), new Date(Date.now() + 300_000));
    expect((await db().select().from(phones).where(eq(phones.id, phoneId)))[0]?.status).toBe('offline');
  });

  it('lets a phone come back online with a heartbeat after the sweep', async () => {
    const owner = await createTestAccount(db());
    await db()
      .update(phones)
      .set({ status: 'online', lastHeartbeatAt: new Date(Date.now() - 3_600_000) })
      .where(eq(phones.id, owner.phoneId));
    await sweepOfflinePhones(db());
    const res = await beat(owner.apiKey, { phone: owner.phone, status: 'online' });
    expect(res.body.status).toBe('online');
    expect((await phoneEvents([owner.phoneId])).map((e) => e.type).sort()).toEqual(['phone.offline', 'phone.online']);
  });
});

describe('the background loop', () => {
  let stop: (() => Promise<void>) | undefined;
  afterEach(async () => {
    await stop?.();
    stop = undefined;
  });

  it('sweeps at start and keeps going', async () => {
    const owner = await createTestAccount(db(), { plan: 'pro' });
    const phoneId = await silentOnlinePhone(owner, 1000);
    stop = await startFleetWork({ intervalMs: 25 });
    await until(async () => (await db().select().from(phones).where(eq(phones.id, phoneId)))[0]?.status === 'offline');
    expect(await phoneEvents([phoneId])).toHaveLength(1);
  });

  it('outlives a failing sweep', async () => {
    let calls = 0;
    stop = await startFleetWork({
      intervalMs: 10,
      sweep: async () => {
        calls += 1;
        if (calls < 3) throw new Error('database away');
        return 0;
      },
    });
    await until(async () => calls >= 4);
  });
});

describe('GET /api/v1/phones/{id}/heartbeats', () => {
  it('lists the phone’s heartbeats newest first, page by page, with since', async () => {
    const owner = await createTestAccount(db());
    for (const battery of [90, 80, 70]) await beat(owner.apiKey, { phone: owner.phone, status: 'online', battery });
    await beat(owner.apiKey, { phone: owner.phone, status: 'offline' });
    const params = { id: owner.phoneId };
    const first = await call(history, { params, path: '/x?limit=3', apiKey: owner.apiKey });
    expect(first.status).toBe(200);
    expect(first.body.data).toEqual([
      { status: 'offline', battery: null, at: expect.stringMatching(/Z$/) },
      { status: 'online', battery: 70, at: expect.any(String) },
      { status: 'online', battery: 80, at: expect.any(String) },
    ]);
    const second = await call(history, {
      params,
      path: `/x?limit=3&cursor=${first.body.next_cursor}`,
      apiKey: owner.apiKey,
    });
    expect(second.body).toEqual({
      data: [{ status: 'online', battery: 90, at: expect.any(String) }],
      next_cursor: null,
    });
    const future = encodeURIComponent(new Date(Date.now() + 60_000).toISOString());
    const none = await call(history, { params, path: `/x?since=${future}`, apiKey: owner.apiKey });
    expect(none.body.data).toEqual([]);
    const past = encodeURIComponent('2000-01-01T00:00:00+02:00');
    const all = await call(history, { params, path: `/x?since=${past}`, apiKey: owner.apiKey });
    expect(all.body.data).toHaveLength(4);
  });

  it.each(['since=yesterday', 'since=2026-13-01T00:00:00Z', 'since=1700000000', 'limit=-1', 'cursor=abc'])(
    'answers 400 VALIDATION_ERROR for ?%s',
    async (query) => {
      const res = await call(history, { params: { id: account.phoneId }, path: `/x?${query}`, apiKey: account.apiKey });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    },
  );

  it('answers 400 for a malformed id and 404 for an unknown one', async () => {
    expect((await call(history, { params: { id: 'nope' }, apiKey: account.apiKey })).status).toBe(400);
    const res = await call(history, { params: { id: crypto.randomUUID() }, apiKey: account.apiKey });
    expect(res.status).toBe(404);
    expect(res.body.code).toBe('NOT_FOUND');
  });
});

describe('heartbeats and another account', () => {
  it('answer 403 FORBIDDEN for its phones, and its history is 404 NOT_FOUND', async () => {
    const other = await createTestAccount(db());
    for (const key of [other.apiKey, other.deviceKey]) {
      const res = await beat(key, { phone: account.phone, status: 'offline' });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    }
    const read = await call(history, { params: { id: account.phoneId }, apiKey: other.apiKey });
    expect(read.status).toBe(404);
    expect(read.body.code).toBe('NOT_FOUND');
    const [phone] = await db()
      .select()
      .from(phones)
      .where(and(eq(phones.id, account.phoneId)));
    expect(phone?.status).not.toBe('offline');
  });
});

describeAuthCases('POST /api/v1/heartbeats', {
  handler: POST,
  request: () => ({ body: { phone: account.phone, status: 'online' } }),
  accepts: 'any',
  fixture,
});
describeAuthCases('GET /api/v1/phones/{id}/heartbeats', {
  handler: history,
  request: () => ({ params: { id: account.phoneId } }),
  accepts: 'account',
  fixture,
});
