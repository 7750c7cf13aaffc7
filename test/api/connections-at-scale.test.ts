import { inArray } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { POST as claim } from '@/app/api/v1/device/outbox/claim/route';
import { POST as send } from '@/app/api/v1/messages/route';
import { devices } from '@/db/schema';
import { clearKeyCache, PATIENT_LOOKUP_WINDOW_MS, principalForKey, touchLastUsed } from '@/lib/auth/key-lookup';
import type { DevicePrincipal } from '@/lib/auth/principal';
import { jitteredWaitMs } from '@/lib/messages/claim';
import { findConnectingPhone } from '@/lib/messages/device-phone';
import { waitingClaims } from '@/lib/notify/outbox';
import * as transactions from '@/lib/transactions';
import { addTestPhone, createTestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { until } from '../poll';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

afterEach(() => {
  vi.restoreAllMocks();
});

/** `count` phones of one account, each with its own device key. */
async function phonesOf(count: number) {
  const who = await createTestAccount(db(), { credits: 100 });
  const more = await Promise.all(Array.from({ length: count - 1 }, () => addTestPhone(db(), who)));
  return { who, phones: [{ phone: who.phone, deviceKey: who.deviceKey, deviceId: who.deviceId }, ...more] };
}

const claimAs = (deviceKey: string, wait = 0) =>
  call(claim, { path: `/api/v1/device/outbox/claim?wait=${wait}`, body: { limit: 5 }, apiKey: deviceKey });

describe('a phone with nothing to claim', () => {
  it('costs no transaction, and phones claiming together are looked at in one statement', async () => {
    const { who, phones } = await phonesOf(12);
    const began = vi.spyOn(transactions, 'withTransaction');
    const executed = vi.spyOn(db(), 'execute');
    const answers = await Promise.all(phones.map((phone) => claimAs(phone.deviceKey)));
    for (const answer of answers) expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    expect(answers.every((answer) => answer.body.data.length === 0 && answer.body.cancel.length === 0)).toBe(true);
    expect(began).not.toHaveBeenCalled();
    // The probes of twelve phones that arrived together went as one or two statements, not twelve.
    const probes = executed.mock.calls.filter(([query]) => JSON.stringify(query).includes('cancelling_since'));
    expect(probes.length).toBeGreaterThan(0);
    expect(probes.length).toBeLessThanOrEqual(2);
    // The spy sees transactions: a phone with a message due claims it in one.
    const sent = await call(send, { body: { from: who.phone, to: testNumber(), content: 'due' }, apiKey: who.apiKey });
    expect(sent.status).toBe(201);
    expect((await claimAs(who.deviceKey)).body.data).toHaveLength(1);
    expect(began).toHaveBeenCalled();
  });

  it('still hands out what is due, in the claim transaction, and wakes a waiting claim', async () => {
    const { who } = await phonesOf(1);
    const waiting = claimAs(who.deviceKey, 5);
    await until(() => waitingClaims(who.phoneId) > 0);
    const sent = await call(send, { body: { from: who.phone, to: testNumber(), content: 'due' }, apiKey: who.apiKey });
    expect(sent.status).toBe(201);
    const answer = await waiting;
    expect(answer.status).toBe(200);
    expect(answer.body.data.map((m: { id: string }) => m.id)).toEqual([sent.body.id]);
  });
});

describe('the wait of an empty long-poll', () => {
  it('ends up to a fifth (at most 5 s) early for waits of 10 s or more, so phones that connected together spread out', () => {
    expect(jitteredWaitMs(25_000, () => 0)).toBe(25_000);
    expect(jitteredWaitMs(25_000, () => 1)).toBe(20_000);
    expect(jitteredWaitMs(30_000, () => 1)).toBe(25_000);
    expect(jitteredWaitMs(10_000, () => 0.5)).toBe(9_000);
    const spread = new Set(Array.from({ length: 50 }, () => jitteredWaitMs(25_000)));
    expect(spread.size).toBeGreaterThan(10);
    // Short waits stay as asked.
    expect(jitteredWaitMs(5_000, () => 1)).toBe(5_000);
  });
});

describe('phones connecting together', () => {
  it('find their keys and their phones in one statement each, not one per phone', async () => {
    const { phones } = await phonesOf(10);
    clearKeyCache();
    const selects = vi.spyOn(db(), 'select');
    const principals = (await Promise.all(
      phones.map((phone) => principalForKey(db(), phone.deviceKey)),
    )) as DevicePrincipal[];
    expect(principals.map((principal) => principal?.deviceId)).toEqual(phones.map((phone) => phone.deviceId));
    expect(selects.mock.calls.length).toBeLessThanOrEqual(2);
    selects.mockClear();
    const found = await Promise.all(principals.map((principal) => findConnectingPhone(db(), principal)));
    expect(found.map((phone) => phone.phone)).toEqual(phones.map((phone) => phone.phone));
    expect(selects.mock.calls.length).toBeLessThanOrEqual(2);
  });

  it('opening their connections, look up their keys with those of the next few milliseconds', async () => {
    const { phones } = await phonesOf(3);
    clearKeyCache();
    const selects = vi.spyOn(db(), 'select');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const first = principalForKey(db(), phones[0]!.deviceKey, { patient: true });
      await vi.advanceTimersByTimeAsync(PATIENT_LOOKUP_WINDOW_MS - 5);
      expect(selects).not.toHaveBeenCalled();
      // A lookup that is not patient goes at once, by itself.
      const now = await principalForKey(db(), phones[2]!.deviceKey);
      expect(selects).toHaveBeenCalledTimes(1);
      const second = principalForKey(db(), phones[1]!.deviceKey, { patient: true });
      await vi.advanceTimersByTimeAsync(5);
      const found = (await Promise.all([first, second, now])) as DevicePrincipal[];
      expect(found.map((principal) => principal.deviceId)).toEqual(phones.map((phone) => phone.deviceId));
      expect(selects).toHaveBeenCalledTimes(2);
      // Cached: the route's own lookup after the patient one goes to no statement.
      await principalForKey(db(), phones[0]!.deviceKey);
      expect(selects).toHaveBeenCalledTimes(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('are remembered: a re-poll looks its phone up no more, until the keys change', async () => {
    const { phones } = await phonesOf(2);
    const principals = (await Promise.all(
      phones.map((phone) => principalForKey(db(), phone.deviceKey)),
    )) as DevicePrincipal[];
    await Promise.all(principals.map((principal) => findConnectingPhone(db(), principal)));
    const selects = vi.spyOn(db(), 'select');
    const again = await Promise.all(principals.map((principal) => findConnectingPhone(db(), principal)));
    expect(again.map((phone) => phone.phone)).toEqual(phones.map((phone) => phone.phone));
    expect(selects).not.toHaveBeenCalled();
    // Another principal of the same device (another number) is not answered from memory.
    await expect(findConnectingPhone(db(), { ...principals[0]!, phoneNumber: '+14155550000' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
    selects.mockClear();
    clearKeyCache();
    await findConnectingPhone(db(), principals[0]!);
    expect(selects).toHaveBeenCalledTimes(1);
  });

  it('keep nothing a lookup read before the keys changed: the key and the phone are looked up again', async () => {
    const { phones } = await phonesOf(1);
    clearKeyCache();
    const select = db().select.bind(db());
    // The keys change (a revocation, a removed phone: clearKeyCache) while each lookup's statement is under way.
    const changingKeys = ((...args: Parameters<typeof select>) => {
      clearKeyCache();
      return select(...args);
    }) as typeof select;
    const selects = vi.spyOn(db(), 'select').mockImplementationOnce(changingKeys);
    const principal = (await principalForKey(db(), phones[0]!.deviceKey)) as DevicePrincipal;
    expect(principal.deviceId).toBe(phones[0]!.deviceId);
    await principalForKey(db(), phones[0]!.deviceKey);
    expect(selects).toHaveBeenCalledTimes(2);

    selects.mockClear().mockImplementationOnce(changingKeys);
    expect((await findConnectingPhone(db(), principal)).phone).toBe(phones[0]!.phone);
    await findConnectingPhone(db(), principal);
    expect(selects).toHaveBeenCalledTimes(2);
    // Read with no change meanwhile, both are kept.
    await principalForKey(db(), phones[0]!.deviceKey);
    await findConnectingPhone(db(), principal);
    expect(selects).toHaveBeenCalledTimes(3);
  });

  it('do not find a phone their device no longer speaks for', async () => {
    const { phones } = await phonesOf(2);
    const [principal] = (await Promise.all(
      phones.map((phone) => principalForKey(db(), phone.deviceKey)),
    )) as DevicePrincipal[];
    await expect(findConnectingPhone(db(), { ...principal!, phoneNumber: '+14155550000' })).rejects.toMatchObject({
      code: 'FORBIDDEN',
    });
  });

  it('record their keys’ last use in one statement per kind', async () => {
    const { who, phones } = await phonesOf(6);
    const principals = (await Promise.all(
      phones.map((phone) => principalForKey(db(), phone.deviceKey)),
    )) as DevicePrincipal[];
    // Each kind's write runs in a transaction of its own (its lock wait bounded): the updates are counted there.
    const transaction = db().transaction.bind(db());
    let updates = 0;
    const transactions = vi.spyOn(db(), 'transaction').mockImplementation(((work, config) =>
      transaction(async (tx) => {
        const update = tx.update.bind(tx);
        tx.update = ((table) => {
          updates++;
          return update(table);
        }) as typeof tx.update;
        return work(tx);
      }, config)) as ReturnType<typeof db>['transaction']);
    try {
      for (const principal of principals) touchLastUsed(db(), principal);
      touchLastUsed(db(), { kind: 'account', accountId: who.accountId, keyId: who.apiKeyId, via: 'api_key' });
      await vi.waitFor(() => expect(updates).toBe(2), { timeout: 5000 });
      expect(transactions).toHaveBeenCalledTimes(2);
    } finally {
      transactions.mockRestore();
    }
  });

  it('gather last uses that come turns of the event loop apart, as re-polling phones do', async () => {
    const { phones } = await phonesOf(4);
    const principals = (await Promise.all(
      phones.map((phone) => principalForKey(db(), phone.deviceKey)),
    )) as DevicePrincipal[];
    const transactions = vi.spyOn(db(), 'transaction');
    try {
      for (const principal of principals) {
        touchLastUsed(db(), principal);
        await new Promise((resolve) => setImmediate(resolve));
      }
      await vi.waitFor(
        async () => {
          const rows = await db()
            .select({ lastUsedAt: devices.lastUsedAt })
            .from(devices)
            .where(
              inArray(
                devices.id,
                principals.map((principal) => principal.deviceId),
              ),
            );
          expect(rows.every((row) => row.lastUsedAt !== null)).toBe(true);
        },
        { timeout: 5000 },
      );
      expect(transactions).toHaveBeenCalledTimes(1);
    } finally {
      transactions.mockRestore();
    }
  });
});
