import { and, eq, sql } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { POST as createKey, GET as listKeys } from '@/app/api/v1/auth/api-keys/route';
import { POST as bindConfirm } from '@/app/api/v1/auth/bind/confirm/route';
import { POST as bindRequest } from '@/app/api/v1/auth/bind/request-code/route';
import { POST as registerDevice } from '@/app/api/v1/phones/register-device/route';
import { GET as listPhones } from '@/app/api/v1/phones/route';
import { POST as verifySim } from '@/app/api/v1/phones/verify-sim/route';
import { accounts, creditLedger, devices, phoneGroups, phones, verificationCodes } from '@/db/schema';
import { listDevInbox } from '@/lib/dev-inbox/store';
import { createPhone } from '@/lib/phones/create';
import { describeAuthCases } from '../auth-cases';
import { earlier } from '../earlier';
import { createTestAccount, sharedTestAccount, testNumber } from '../fixtures';
import { call, fromSocket } from '../http';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

const { account, fixture } = sharedTestAccount(db);
afterEach(() => {
  vi.unstubAllEnvs();
});

/** The code of the newest dev-inbox message to an address or number. */
async function lastCode(to: string): Promise<string> {
  const [item] = await listDevInbox(db(), { to, limit: 1 });
  if (!item?.code) throw new Error(`no code was sent to ${to}`);
  return item.code;
}

function wrongCode(code: string): string {
  return code === '000000' ? '111111' : '000000';
}

async function register(phoneNumber = testNumber(), headers: Record<string, string> = {}) {
  const res = await call(registerDevice, { body: { phone_number: phoneNumber }, headers });
  expect(res.status).toBe(201);
  return { deviceId: res.body.device_id as string, phoneNumber };
}

async function verifiedDevice(phoneNumber = testNumber()) {
  const { deviceId } = await register(phoneNumber);
  const res = await call(verifySim, { body: { device_id: deviceId, code: await lastCode(phoneNumber) } });
  expect(res.status).toBe(200);
  return { deviceId, phoneNumber, deviceKey: res.body.device_key as string };
}

async function activatedDevice(email: string, phoneNumber = testNumber()) {
  const device = await verifiedDevice(phoneNumber);
  expect((await call(bindRequest, { body: { email }, apiKey: device.deviceKey })).status).toBe(202);
  const res = await call(bindConfirm, {
    body: { code: await lastCode(email.toLowerCase()) },
    apiKey: device.deviceKey,
  });
  expect(res.status).toBe(200);
  return { ...device, accountId: res.body.account_id as string };
}

function newEmail(): string {
  return `owner-${crypto.randomUUID()}@example.test`;
}

describe('device activation, end to end', () => {
  it('registers, verifies the SIM, binds an email, creates an account and an API key', async () => {
    const phoneNumber = testNumber();
    const registered = await call(registerDevice, {
      body: { phone_number: phoneNumber, country_code: 'US', label: 'Office Pixel' },
    });
    expect(registered.status).toBe(201);
    expect(registered.body).toEqual({
      device_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'pending_verification',
      verification_expires_at: expect.stringMatching(/Z$/),
    });
    const lifetime = Date.parse(registered.body.verification_expires_at) - Date.now();
    expect(lifetime).toBeGreaterThan(9 * 60_000);
    expect(lifetime).toBeLessThanOrEqual(10 * 60_000 + 5_000);

    const [sms] = await listDevInbox(db(), { to: phoneNumber, limit: 5 });
    expect(sms).toMatchObject({ channel: 'sms', to: phoneNumber, code: expect.stringMatching(/^\d{6}$/) });
    expect(sms!.text).toContain(sms!.code!);

    const verified = await call(verifySim, { body: { device_id: registered.body.device_id, code: sms!.code } });
    expect(verified.status).toBe(200);
    expect(verified.body).toEqual({
      device_id: registered.body.device_id,
      status: 'verified',
      device_key: expect.stringMatching(/^dk_[0-9A-Za-z]{32,}$/),
    });
    const deviceKey = verified.body.device_key as string;

    const email = `New.Owner-${crypto.randomUUID()}@Example.TEST`;
    const requested = await call(bindRequest, { body: { email }, apiKey: deviceKey });
    expect(requested.status).toBe(202);
    expect(requested.body).toEqual({ status: 'code_sent', expires_at: expect.stringMatching(/Z$/) });
    const [mail] = await listDevInbox(db(), { to: email.toLowerCase(), limit: 1 });
    expect(mail).toMatchObject({ channel: 'email', subject: expect.stringContaining(mail!.code!) });

    const confirmed = await call(bindConfirm, { body: { code: mail!.code }, apiKey: deviceKey });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body).toEqual({ status: 'activated', account_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const accountId = confirmed.body.account_id as string;

    const [created] = await db().select().from(accounts).where(eq(accounts.id, accountId));
    expect(created).toMatchObject({ email: email.toLowerCase(), plan: 'free' });
    const groups = await db().select().from(phoneGroups).where(eq(phoneGroups.accountId, accountId));
    expect(groups).toEqual([expect.objectContaining({ name: 'Default', isDefault: true, balance: 100 })]);
    const ledger = await db().select().from(creditLedger).where(eq(creditLedger.accountId, accountId));
    expect(ledger).toEqual([expect.objectContaining({ kind: 'starter_grant', amount: 100 })]);
    const [device] = await db().select().from(devices).where(eq(devices.id, registered.body.device_id));
    expect(device).toMatchObject({ status: 'activated', accountId, countryCode: 'US', label: 'Office Pixel' });
    expect(device!.keyHash).not.toContain(deviceKey);

    // The device key worked as "verified" a moment ago: activation must show at once (no stale cache).
    const key = await call(createKey, { body: { name: 'backend' }, apiKey: deviceKey });
    expect(key.status).toBe(201);
    expect(key.body.key).toMatch(/^sk_[0-9A-Za-z]{32,}$/);

    const phoneList = await call(listPhones, { apiKey: key.body.key });
    expect(phoneList.status).toBe(200);
    expect(phoneList.body.data).toEqual([
      expect.objectContaining({ phone: phoneNumber, group_id: groups[0]!.id, device_connected: true }),
    ]);
    const keys = await call(listKeys, { apiKey: key.body.key });
    expect(keys.body.data.map((k: { id: string }) => k.id)).toEqual([key.body.id]);
  });

  it('stores codes only as hashes', async () => {
    const phoneNumber = testNumber();
    const { deviceId } = await register(phoneNumber);
    const code = await lastCode(phoneNumber);
    const [row] = await db().select().from(verificationCodes).where(eq(verificationCodes.deviceId, deviceId));
    expect(row!.codeHash).toMatch(/^[0-9a-f]{64}$/);
    expect(row!.codeHash).not.toContain(code);
  });

  it('binds a second device with the same email into the same account, both phones listed', async () => {
    const email = newEmail();
    const first = await activatedDevice(email);
    const second = await activatedDevice(email.toUpperCase());
    expect(second.accountId).toBe(first.accountId);
    const key = await call(createKey, { body: { name: 'k' }, apiKey: second.deviceKey });
    const list = await call(listPhones, { apiKey: key.body.key });
    expect(list.body.data.map((p: { phone: string }) => p.phone).sort()).toEqual(
      [first.phoneNumber, second.phoneNumber].sort(),
    );
    const accountRows = await db().select().from(accounts).where(eq(accounts.email, email));
    expect(accountRows).toHaveLength(1);
    const ledger = await db().select().from(creditLedger).where(eq(creditLedger.accountId, first.accountId));
    expect(ledger).toHaveLength(1);
  });

  it('binds an email that already has an account (made another way) to that account', async () => {
    const device = await activatedDevice(account.email);
    expect(device.accountId).toBe(account.accountId);
  });

  it('re-activating a number the account already has moves its phone to the new device and revokes the old one', async () => {
    const email = newEmail();
    const phoneNumber = testNumber();
    const old = await activatedDevice(email, phoneNumber);
    const replacement = await activatedDevice(email, phoneNumber);
    expect(replacement.accountId).toBe(old.accountId);
    const rows = await db().select().from(phones).where(eq(phones.accountId, old.accountId));
    expect(rows).toEqual([expect.objectContaining({ phone: phoneNumber, deviceId: replacement.deviceId })]);
    const [oldDevice] = await db().select().from(devices).where(eq(devices.id, old.deviceId));
    expect(oldDevice!.status).toBe('revoked');
    const refused = await call(createKey, { body: { name: 'k' }, apiKey: old.deviceKey });
    expect(refused.status).toBe(401);
  });

  it('refuses activation over the plan phone limit, and activates nothing', async () => {
    const email = newEmail();
    const first = await activatedDevice(email);
    for (let i = 0; i < 2; i++) await createPhone(db(), first.accountId, { phone: testNumber() });
    const device = await verifiedDevice();
    await call(bindRequest, { body: { email }, apiKey: device.deviceKey });
    const code = await lastCode(email);
    const refused = await call(bindConfirm, { body: { code }, apiKey: device.deviceKey });
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('PLAN_LIMIT_REACHED');
    const [row] = await db().select().from(devices).where(eq(devices.id, device.deviceId));
    expect(row).toMatchObject({ status: 'verified', accountId: null });
    const count = await db().select().from(phones).where(eq(phones.accountId, first.accountId));
    expect(count).toHaveLength(3);
    const keyRefused = await call(createKey, { body: { name: 'k' }, apiKey: device.deviceKey });
    expect(keyRefused.body.code).toBe('DEVICE_NOT_ACTIVATED');

    // The code was not used up: once a phone is freed, the same code activates.
    await db()
      .delete(phones)
      .where(and(eq(phones.accountId, first.accountId), eq(phones.phone, first.phoneNumber)));
    const accepted = await call(bindConfirm, { body: { code }, apiKey: device.deviceKey });
    expect(accepted.status).toBe(200);
  });
});

describe('POST /api/v1/phones/register-device: validation', () => {
  it.each([
    ['not a number', 'hello'],
    ['no plus sign', '14155550100'],
    ['too short', '+1415'],
    ['too long', '+141555501001234567'],
    ['an impossible number', '+10005550100'],
    ['a number', 14155550100],
  ])('answers 400 VALIDATION_ERROR naming phone_number for %s', async (_, phoneNumber) => {
    const res = await call(registerDevice, { body: { phone_number: phoneNumber } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(['phone_number']);
  });

  it('answers 400 naming phone_number when it is missing', async () => {
    const res = await call(registerDevice, { body: { country_code: 'US' } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].path).toBe('phone_number');
  });

  it.each([
    ['an unknown code', 'XX'],
    ['three letters', 'USA'],
    ['digits', '1'],
    ['an empty string', ''],
  ])('answers 400 naming country_code for %s', async (_, countryCode) => {
    const res = await call(registerDevice, { body: { phone_number: testNumber(), country_code: countryCode } });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('VALIDATION_ERROR');
    expect(res.body.errors).toEqual([{ path: 'country_code', message: expect.stringContaining('ISO 3166-1') }]);
  });

  it('answers 400 naming country_code when it does not match the number', async () => {
    const res = await call(registerDevice, { body: { phone_number: testNumber(), country_code: 'GB' } });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: 'country_code', message: expect.stringContaining('US') }]);
  });

  it('accepts a matching country code in any case, and normalises the number', async () => {
    const res = await call(registerDevice, { body: { phone_number: ' +44 7400 123456 ', country_code: 'gb' } });
    expect(res.status).toBe(201);
    const [device] = await db().select().from(devices).where(eq(devices.id, res.body.device_id));
    expect(device).toMatchObject({ phoneNumber: '+447400123456', countryCode: 'GB' });
  });

  it('bounds the label', async () => {
    const res = await call(registerDevice, { body: { phone_number: testNumber(), label: 'x'.repeat(101) } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].path).toBe('label');
  });
});

describe('POST /api/v1/phones/verify-sim: codes', () => {
  it('answers 400 INVALID_CODE for a wrong code, and the right code still works', async () => {
    const phoneNumber = testNumber();
    const { deviceId } = await register(phoneNumber);
    const code = await lastCode(phoneNumber);
    const wrong = await call(verifySim, { body: { device_id: deviceId, code: wrongCode(code) } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.code).toBe('INVALID_CODE');
    const right = await call(verifySim, { body: { device_id: deviceId, code } });
    expect(right.status).toBe(200);
  });

  it('burns the code after 5 wrong tries: then even the right code answers 410 CODE_EXPIRED', async () => {
    const phoneNumber = testNumber();
    const { deviceId } = await register(phoneNumber);
    const code = await lastCode(phoneNumber);
    for (let attempt = 0; attempt < 5; attempt++) {
      const res = await call(verifySim, { body: { device_id: deviceId, code: wrongCode(code) } });
      expect(res.body.code).toBe('INVALID_CODE');
    }
    const burnt = await call(verifySim, { body: { device_id: deviceId, code } });
    expect(burnt.status).toBe(410);
    expect(burnt.body.code).toBe('CODE_EXPIRED');
    const [row] = await db().select().from(devices).where(eq(devices.id, deviceId));
    expect(row!.status).toBe('pending_verification');
  });

  it('counts wrong tries made at the same time (no lost updates)', async () => {
    const phoneNumber = testNumber();
    const { deviceId } = await register(phoneNumber);
    const code = await lastCode(phoneNumber);
    await Promise.all(
      Array.from({ length: 5 }, () => call(verifySim, { body: { device_id: deviceId, code: wrongCode(code) } })),
    );
    const [row] = await db().select().from(verificationCodes).where(eq(verificationCodes.deviceId, deviceId));
    expect(row!.failedAttempts).toBe(5);
    expect((await call(verifySim, { body: { device_id: deviceId, code } })).body.code).toBe('CODE_EXPIRED');
  });

  it('answers 410 CODE_EXPIRED for a code past its 10 minutes', async () => {
    const phoneNumber = testNumber();
    const { deviceId } = await register(phoneNumber);
    const code = await lastCode(phoneNumber);
    await db()
      .update(verificationCodes)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(verificationCodes.deviceId, deviceId));
    const res = await call(verifySim, { body: { device_id: deviceId, code } });
    expect(res.status).toBe(410);
    expect(res.body.code).toBe('CODE_EXPIRED');
  });

  it('only the newest code counts after registering the number again', async () => {
    const phoneNumber = testNumber();
    const { deviceId } = await register(phoneNumber);
    const code = await lastCode(phoneNumber);
    const again = await register(phoneNumber);
    expect(again.deviceId).not.toBe(deviceId);
    const newCode = await lastCode(phoneNumber);
    expect((await call(verifySim, { body: { device_id: again.deviceId, code: newCode } })).status).toBe(200);
    expect((await call(verifySim, { body: { device_id: deviceId, code } })).status).toBe(200);
  });

  it('answers 404 NOT_FOUND for an unknown device and 400 for a malformed id or code', async () => {
    const unknown = await call(verifySim, { body: { device_id: crypto.randomUUID(), code: '123456' } });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('NOT_FOUND');
    const badId = await call(verifySim, { body: { device_id: 'nope', code: '123456' } });
    expect(badId.status).toBe(400);
    expect(badId.body.errors[0].path).toBe('device_id');
    const badCode = await call(verifySim, { body: { device_id: crypto.randomUUID(), code: '12ab' } });
    expect(badCode.status).toBe(400);
    expect(badCode.body.errors[0].path).toBe('code');
  });

  it('answers 409 INVALID_TRANSITION once the device is verified (the key is shown once)', async () => {
    const phoneNumber = testNumber();
    const { deviceId } = await verifiedDevice(phoneNumber);
    const res = await call(verifySim, { body: { device_id: deviceId, code: await lastCode(phoneNumber) } });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('INVALID_TRANSITION');
  });
});

describe('register-device rate limits', () => {
  it('answers 429 RATE_LIMITED with Retry-After past the per-number limit, counted per number', async () => {
    vi.stubEnv('VERIFICATION_RATE_LIMIT', '2');
    vi.stubEnv('VERIFICATION_RATE_WINDOW_S', '600');
    const phoneNumber = testNumber();
    await register(phoneNumber);
    await register(phoneNumber);
    const limited = await call(registerDevice, { body: { phone_number: phoneNumber } });
    expect(limited.status).toBe(429);
    expect(limited.contentType).toBe('application/problem+json');
    expect(limited.body.code).toBe('RATE_LIMITED');
    const retryAfter = Number(limited.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(590);
    expect(retryAfter).toBeLessThanOrEqual(600);

    // Another number is not affected; a refused request was not counted.
    await register(testNumber());
    await db().execute(
      sql`update rate_limit_hits set created_at = ${earlier(sql`created_at`, 500_000)}
          where bucket = ${`verify:${phoneNumber}`}`,
    );
    const later = await call(registerDevice, { body: { phone_number: phoneNumber } });
    expect(later.status).toBe(429);
    const retryLater = Number(later.headers.get('retry-after'));
    expect(retryLater).toBeGreaterThan(90);
    expect(retryLater).toBeLessThanOrEqual(100);

    // Once the hits leave the rolling window, the number may register again.
    await db().execute(
      sql`update rate_limit_hits set created_at = ${earlier(sql`created_at`, 200_000)}
          where bucket = ${`verify:${phoneNumber}`}`,
    );
    await register(phoneNumber);
  });

  it('holds the per-number limit under concurrent requests', async () => {
    vi.stubEnv('VERIFICATION_RATE_LIMIT', '2');
    const phoneNumber = testNumber();
    const results = await Promise.all(
      Array.from({ length: 6 }, () => call(registerDevice, { body: { phone_number: phoneNumber } })),
    );
    expect(results.map((r) => r.status).sort()).toEqual([201, 201, 429, 429, 429, 429]);
    const rows = await db().select().from(devices).where(eq(devices.phoneNumber, phoneNumber));
    expect(rows).toHaveLength(2);
  });

  it('limits per client IP, by the socket address: forwarding headers are ignored unless TRUST_PROXY', async () => {
    vi.stubEnv('REGISTER_IP_RATE_LIMIT', '2');
    const client = fromSocket('203.0.113.7');
    await register(testNumber(), client);
    // A fresh X-Forwarded-For per request does not make a new client.
    await register(testNumber(), { ...client, 'x-forwarded-for': '198.51.100.1' });
    const limited = await call(registerDevice, {
      body: { phone_number: testNumber() },
      headers: { ...client, 'x-forwarded-for': '198.51.100.2', 'x-real-ip': '198.51.100.3' },
    });
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(3500);
    // Another socket is another client.
    await register(testNumber(), fromSocket('203.0.113.8'));
  });

  it('behind trusted proxies takes the right-most untrusted X-Forwarded-For entry, which a client cannot spoof', async () => {
    vi.stubEnv('REGISTER_IP_RATE_LIMIT', '2');
    vi.stubEnv('TRUST_PROXY', 'loopback, 10.0.0.0/8');
    const proxy = fromSocket('127.0.0.1');
    // The client 192.0.2.10 sends a forged entry first; the proxies append what they saw.
    const spoofing = (forged: string) => ({ ...proxy, 'x-forwarded-for': `${forged}, 192.0.2.10, 10.0.0.5` });
    await register(testNumber(), spoofing('198.51.100.1'));
    await register(testNumber(), spoofing('198.51.100.2'));
    const limited = await call(registerDevice, {
      body: { phone_number: testNumber() },
      headers: spoofing('198.51.100.3'),
    });
    expect(limited.status).toBe(429);
    // Another client behind the same proxies goes through.
    await register(testNumber(), { ...proxy, 'x-forwarded-for': '192.0.2.11, 10.0.0.5' });
    // A hop count trusts that many hops next to the server.
    vi.stubEnv('TRUST_PROXY', '1');
    await register(testNumber(), { ...proxy, 'x-forwarded-for': '192.0.2.10, 192.0.2.12' });
    await register(testNumber(), { ...proxy, 'x-forwarded-for': '192.0.2.12' });
    const byHops = await call(registerDevice, {
      body: { phone_number: testNumber() },
      headers: { ...proxy, 'x-forwarded-for': '198.51.100.9, 192.0.2.12' },
    });
    expect(byHops.status).toBe(429);
  });

  it('does not trust a proxy that is not listed: its forwarding headers are ignored', async () => {
    vi.stubEnv('REGISTER_IP_RATE_LIMIT', '1');
    vi.stubEnv('TRUST_PROXY', '10.0.0.0/8');
    const untrusted = fromSocket('203.0.113.50');
    await register(testNumber(), { ...untrusted, 'x-forwarded-for': '192.0.2.20' });
    const limited = await call(registerDevice, {
      body: { phone_number: testNumber() },
      headers: { ...untrusted, 'x-forwarded-for': '192.0.2.21' },
    });
    expect(limited.status).toBe(429);
  });

  it('counts requests without address headers as one client, "unknown"', async () => {
    vi.stubEnv('REGISTER_IP_RATE_LIMIT', '1');
    await db().execute(sql`delete from rate_limit_hits where bucket = 'register-ip:unknown'`);
    await register(testNumber());
    const limited = await call(registerDevice, { body: { phone_number: testNumber() } });
    expect(limited.status).toBe(429);
    await db().execute(sql`delete from rate_limit_hits where bucket = 'register-ip:unknown'`);
  });
});

describe('POST /api/v1/auth/bind/request-code and /confirm', () => {
  it('answers 400 for a bad email', async () => {
    const device = await verifiedDevice();
    for (const email of ['nope', '', 'a@b', `${'x'.repeat(250)}@example.com`, 42]) {
      const res = await call(bindRequest, { body: { email }, apiKey: device.deviceKey });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].path).toBe('email');
    }
  });

  it('answers 400 INVALID_CODE, then 410 CODE_EXPIRED once burnt', async () => {
    const device = await verifiedDevice();
    const email = newEmail();
    await call(bindRequest, { body: { email }, apiKey: device.deviceKey });
    const code = await lastCode(email);
    for (let attempt = 0; attempt < 5; attempt++) {
      const res = await call(bindConfirm, { body: { code: wrongCode(code) }, apiKey: device.deviceKey });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('INVALID_CODE');
    }
    const burnt = await call(bindConfirm, { body: { code }, apiKey: device.deviceKey });
    expect(burnt.status).toBe(410);
    expect(burnt.body.code).toBe('CODE_EXPIRED');

    // A new code works again.
    await call(bindRequest, { body: { email }, apiKey: device.deviceKey });
    const fresh = await call(bindConfirm, { body: { code: await lastCode(email) }, apiKey: device.deviceKey });
    expect(fresh.status).toBe(200);
  });

  it('answers 410 CODE_EXPIRED for an expired emailed code', async () => {
    const device = await verifiedDevice();
    const email = newEmail();
    await call(bindRequest, { body: { email }, apiKey: device.deviceKey });
    await db()
      .update(verificationCodes)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(verificationCodes.email, email));
    const res = await call(bindConfirm, { body: { code: await lastCode(email) }, apiKey: device.deviceKey });
    expect(res.status).toBe(410);
    expect(res.body.code).toBe('CODE_EXPIRED');
  });

  it('answers 400 INVALID_CODE when no code was asked for', async () => {
    const device = await verifiedDevice();
    const res = await call(bindConfirm, { body: { code: '123456' }, apiKey: device.deviceKey });
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_CODE');
  });

  it('keeps an activated device in its account: another email answers 409, its own email is fine', async () => {
    const email = newEmail();
    const device = await activatedDevice(email);
    const other = await call(bindRequest, { body: { email: newEmail() }, apiKey: device.deviceKey });
    expect(other.status).toBe(409);
    expect(other.body.code).toBe('INVALID_TRANSITION');
    const own = await call(bindRequest, { body: { email }, apiKey: device.deviceKey });
    expect(own.status).toBe(202);
    const again = await call(bindConfirm, { body: { code: await lastCode(email) }, apiKey: device.deviceKey });
    expect(again.body).toEqual({ status: 'activated', account_id: device.accountId });
  });

  it('limits binding codes per device', async () => {
    vi.stubEnv('VERIFICATION_RATE_LIMIT', '1');
    const device = await verifiedDevice();
    expect((await call(bindRequest, { body: { email: newEmail() }, apiKey: device.deviceKey })).status).toBe(202);
    const limited = await call(bindRequest, { body: { email: newEmail() }, apiKey: device.deviceKey });
    expect(limited.status).toBe(429);
    expect(limited.headers.get('retry-after')).toBeTruthy();
  });

  it('a second account cannot take over a device bound to the first', async () => {
    const device = await activatedDevice(account.email);
    const other = await createTestAccount(db());
    const res = await call(bindRequest, { body: { email: other.email }, apiKey: device.deviceKey });
    expect(res.status).toBe(409);
    const [row] = await db().select().from(devices).where(eq(devices.id, device.deviceId));
    expect(row!.accountId).toBe(account.accountId);
  });
});

describeAuthCases('POST /api/v1/auth/bind/request-code', {
  handler: bindRequest,
  request: { body: { email: 'someone@example.test' } },
  accepts: 'device',
  fixture,
});
describeAuthCases('POST /api/v1/auth/bind/confirm', {
  handler: bindConfirm,
  request: { body: { code: '123456' } },
  accepts: 'device',
  fixture,
});
