import { eq } from 'drizzle-orm';
import { encode } from 'next-auth/jwt';
import { beforeAll, describe, expect, it } from 'vitest';
import { DELETE as revokeKey } from '@/app/api/v1/auth/api-keys/[id]/route';
import { POST as createKey, GET as listKeys } from '@/app/api/v1/auth/api-keys/route';
import { POST as registerDevice } from '@/app/api/v1/phones/register-device/route';
import { GET as listPhones } from '@/app/api/v1/phones/route';
import { POST as verifySim } from '@/app/api/v1/phones/verify-sim/route';
import { apiKeys, devices, phones } from '@/db/schema';
import { appSecret } from '@/lib/config';
import { listDevInbox } from '@/lib/dev-inbox/store';
import { describeAuthCases } from '../auth-cases';
import { createRevokedKey, createTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

// Sessions are encrypted with the app secret: a fixed one, so no secret file is written.
process.env.APP_SECRET ??= 'test-app-secret-0123456789abcdefghijklmnopqrstuvwxyz';
const { db } = withTestDatabase();

let account: TestAccount;
let other: TestAccount;
let revokedKey: string;
beforeAll(async () => {
  account = await createTestAccount(db());
  other = await createTestAccount(db());
  revokedKey = await createRevokedKey(db(), account.accountId);
});

const fixture = () => ({ account, revokedKey });
const APP_ORIGIN = 'http://localhost:3000';

/** A dashboard session cookie for the account, as next-auth would set it. */
async function sessionCookie(accountId: string, claims: Record<string, unknown> = {}): Promise<string> {
  const token = await encode({ token: { accountId, sessionVersion: 0, ...claims }, secret: appSecret(), maxAge: 3600 });
  return `next-auth.session-token=${token}`;
}

async function newKey(apiKey: string, name = 'k'): Promise<{ id: string; key: string }> {
  const res = await call(createKey, { body: { name }, apiKey });
  expect(res.status).toBe(201);
  return res.body;
}

describe('POST /api/v1/auth/api-keys', () => {
  it('creates an sk_ key with an account key, shown once with its prefix', async () => {
    const res = await call(createKey, { body: { name: '  Production backend ' }, apiKey: account.apiKey });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Production backend',
      key: expect.stringMatching(/^sk_[0-9A-Za-z]{40}$/),
      prefix: res.body.key.slice(0, 8),
      created_at: expect.stringMatching(/Z$/),
      role: null,
    });
    const [row] = await db().select().from(apiKeys).where(eq(apiKeys.id, res.body.id));
    expect(row!.keyHash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(res.body.key);
    // The new key works at once.
    expect((await call(listKeys, { apiKey: res.body.key })).status).toBe(200);
  });

  it('creates a key with the device key of an activated device, remembering the device', async () => {
    const res = await call(createKey, { body: { name: 'from phone' }, apiKey: account.deviceKey });
    expect(res.status).toBe(201);
    const [row] = await db().select().from(apiKeys).where(eq(apiKeys.id, res.body.id));
    expect(row).toMatchObject({ accountId: account.accountId, createdByDeviceId: account.deviceId });
  });

  it('answers 403 DEVICE_NOT_ACTIVATED for the key of a device without a bound email', async () => {
    const phoneNumber = testNumber();
    const registered = await call(registerDevice, { body: { phone_number: phoneNumber } });
    const [sms] = await listDevInbox(db(), { to: phoneNumber, limit: 1 });
    const verified = await call(verifySim, { body: { device_id: registered.body.device_id, code: sms!.code } });
    const res = await call(createKey, { body: { name: 'too early' }, apiKey: verified.body.device_key });
    expect(res.status).toBe(403);
    expect(res.contentType).toBe('application/problem+json');
    expect(res.body.code).toBe('DEVICE_NOT_ACTIVATED');
  });

  it('reads the device state afresh: an activation or revocation on another instance counts at once', async () => {
    const phoneNumber = testNumber();
    const registered = await call(registerDevice, { body: { phone_number: phoneNumber } });
    const [sms] = await listDevInbox(db(), { to: phoneNumber, limit: 1 });
    const verified = await call(verifySim, { body: { device_id: registered.body.device_id, code: sms!.code } });
    const deviceKey = verified.body.device_key as string;
    // This instance now caches the device as verified.
    expect((await call(createKey, { body: { name: 'k' }, apiKey: deviceKey })).body.code).toBe('DEVICE_NOT_ACTIVATED');

    // Another instance activates it, making the number a phone it sends for (this one's key cache is not cleared).
    const where = eq(devices.id, registered.body.device_id);
    await db().update(devices).set({ status: 'activated', accountId: account.accountId }).where(where);
    await db().insert(phones).values({
      accountId: account.accountId,
      groupId: account.defaultGroupId,
      phone: phoneNumber,
      deviceId: registered.body.device_id,
    });
    expect((await call(createKey, { body: { name: 'k' }, apiKey: deviceKey })).status).toBe(201);

    await db().update(devices).set({ status: 'revoked' }).where(where);
    const revoked = await call(createKey, { body: { name: 'k' }, apiKey: deviceKey });
    expect(revoked.status).toBe(401);
    expect(revoked.body.code).toBe('UNAUTHENTICATED');
  });

  it('validates the name', async () => {
    for (const body of [{}, { name: '' }, { name: '   ' }, { name: 'x'.repeat(101) }, { name: 7 }]) {
      const res = await call(createKey, { body, apiKey: account.apiKey });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].path).toBe('name');
    }
  });
});

describe('GET /api/v1/auth/api-keys', () => {
  it('lists the account keys newest first, never the key or its hash, with pages', async () => {
    const owner = await createTestAccount(db());
    const created = [await newKey(owner.apiKey, 'one'), await newKey(owner.apiKey, 'two')];
    const res = await call(listKeys, { apiKey: owner.apiKey });
    expect(res.status).toBe(200);
    expect(res.body.next_cursor).toBeNull();
    expect(res.body.data.map((k: { name: string }) => k.name)).toEqual(['two', 'one', 'test']);
    expect(res.body.data[0]).toEqual({
      id: created[1]!.id,
      name: 'two',
      prefix: created[1]!.key.slice(0, 8),
      created_at: expect.stringMatching(/Z$/),
      last_used_at: null,
      revoked_at: null,
      role: null,
      created_by: null,
    });
    for (const key of created) expect(res.text).not.toContain(key.key);
    expect(res.text).not.toMatch(/key_hash|keyHash/);

    const first = await call(listKeys, { path: '/api/v1/auth/api-keys?limit=2', apiKey: owner.apiKey });
    expect(first.body.data).toHaveLength(2);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await call(listKeys, {
      path: `/api/v1/auth/api-keys?limit=2&cursor=${first.body.next_cursor}`,
      apiKey: owner.apiKey,
    });
    expect(second.body.data.map((k: { name: string }) => k.name)).toEqual(['test']);
    expect(second.body.next_cursor).toBeNull();
  });

  it('shows when a key was last used', async () => {
    const owner = await createTestAccount(db());
    await call(listPhones, { apiKey: owner.apiKey });
    await expect
      .poll(async () => {
        const res = await call(listKeys, { apiKey: owner.apiKey });
        return res.body.data.find((k: { id: string }) => k.id === owner.apiKeyId)?.last_used_at;
      })
      .toMatch(/Z$/);
  });

  it('answers 400 for a bad limit or cursor', async () => {
    for (const query of ['limit=0', 'limit=101', 'limit=x', 'cursor=garbage']) {
      const res = await call(listKeys, { path: `/api/v1/auth/api-keys?${query}`, apiKey: account.apiKey });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    }
  });
});

describe('DELETE /api/v1/auth/api-keys/{id}', () => {
  it('revokes at once: 204, then the key answers 401 and the list shows revoked_at', async () => {
    const owner = await createTestAccount(db());
    const victim = await newKey(owner.apiKey, 'to revoke');
    expect((await call(listKeys, { apiKey: victim.key })).status).toBe(200);
    const res = await call(revokeKey, { method: 'DELETE', params: { id: victim.id }, apiKey: owner.apiKey });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    const refused = await call(listKeys, { apiKey: victim.key });
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe('UNAUTHENTICATED');
    const list = await call(listKeys, { apiKey: owner.apiKey });
    const row = list.body.data.find((k: { id: string }) => k.id === victim.id);
    expect(row.revoked_at).toMatch(/Z$/);
    const again = await call(revokeKey, { method: 'DELETE', params: { id: victim.id }, apiKey: owner.apiKey });
    expect(again.status).toBe(204);
  });

  it('a key can revoke itself', async () => {
    const owner = await createTestAccount(db());
    const res = await call(revokeKey, { method: 'DELETE', params: { id: owner.apiKeyId }, apiKey: owner.apiKey });
    expect(res.status).toBe(204);
    expect((await call(listKeys, { apiKey: owner.apiKey })).status).toBe(401);
  });

  it('answers 404 for an unknown id and 400 for a malformed one', async () => {
    const unknown = await call(revokeKey, {
      method: 'DELETE',
      params: { id: crypto.randomUUID() },
      apiKey: account.apiKey,
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.code).toBe('NOT_FOUND');
    const malformed = await call(revokeKey, { method: 'DELETE', params: { id: '1 or 1=1' }, apiKey: account.apiKey });
    expect(malformed.status).toBe(400);
  });
});

describe('a second account', () => {
  it('never sees, revokes or uses the first account’s keys', async () => {
    const secret = await newKey(account.apiKey, 'first only');
    const list = await call(listKeys, { apiKey: other.apiKey });
    expect(list.body.data.map((k: { id: string }) => k.id)).toEqual([other.apiKeyId]);
    expect(list.text).not.toContain(secret.id);

    const revoke = await call(revokeKey, { method: 'DELETE', params: { id: secret.id }, apiKey: other.apiKey });
    expect(revoke.status).toBe(404);
    expect(revoke.body.code).toBe('NOT_FOUND');
    expect((await call(listKeys, { apiKey: secret.key })).status).toBe(200);

    // A key made by the second account belongs to the second account only.
    const own = await newKey(other.apiKey);
    const [row] = await db().select().from(apiKeys).where(eq(apiKeys.id, own.id));
    expect(row!.accountId).toBe(other.accountId);
    const firstList = await call(listKeys, { apiKey: account.apiKey });
    expect(firstList.text).not.toContain(own.id);
  });

  it('cannot revoke the first account’s keys from a session either', async () => {
    const secret = await newKey(account.apiKey);
    const res = await call(revokeKey, {
      method: 'DELETE',
      params: { id: secret.id },
      headers: { cookie: await sessionCookie(other.accountId), origin: APP_ORIGIN },
    });
    expect(res.status).toBe(404);
  });
});

describe('the dashboard session cookie', () => {
  it('lists keys with the cookie alone (a safe method needs no Origin)', async () => {
    const res = await call(listKeys, { headers: { cookie: await sessionCookie(account.accountId) } });
    expect(res.status).toBe(200);
    expect(res.body.data.length).toBeGreaterThan(0);
  });

  it('creates a key from the app’s own origin (201), refuses another origin or none (403)', async () => {
    const cookie = await sessionCookie(account.accountId);
    const same = await call(createKey, { body: { name: 'panel' }, headers: { cookie, origin: APP_ORIGIN } });
    expect(same.status).toBe(201);
    const refused: Record<string, string>[] = [
      { cookie, origin: 'https://evil.example' },
      { cookie },
      { cookie, origin: 'null' },
    ];
    for (const headers of refused) {
      const res = await call(createKey, { body: { name: 'csrf' }, headers });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    }
  });

  it('refuses a cross-origin revoke (403) and keeps the key', async () => {
    const victim = await newKey(account.apiKey);
    const cookie = await sessionCookie(account.accountId);
    const cross = await call(revokeKey, {
      method: 'DELETE',
      params: { id: victim.id },
      headers: { cookie, origin: 'https://evil.example' },
    });
    expect(cross.status).toBe(403);
    expect((await call(listKeys, { apiKey: victim.key })).status).toBe(200);
    const same = await call(revokeKey, {
      method: 'DELETE',
      params: { id: victim.id },
      headers: { cookie, origin: APP_ORIGIN },
    });
    expect(same.status).toBe(204);
  });

  it('answers 401 for a forged, expired or foreign cookie', async () => {
    const forged = await encode({ token: { accountId: account.accountId }, secret: 'x'.repeat(40), maxAge: 3600 });
    const expired = await encode({ token: { accountId: account.accountId }, secret: appSecret(), maxAge: -60 });
    const noAccount = await encode({ token: { sub: 'someone' }, secret: appSecret(), maxAge: 3600 });
    for (const token of [forged, expired, noAccount, 'garbage']) {
      const res = await call(listKeys, { headers: { cookie: `next-auth.session-token=${token}` } });
      expect(res.status).toBe(401);
      expect(res.body.code).toBe('UNAUTHENTICATED');
    }
  });
});

describeAuthCases('POST /api/v1/auth/api-keys', {
  handler: createKey,
  request: { body: { name: 'auth case' } },
  accepts: 'any',
  fixture,
});
describeAuthCases('GET /api/v1/auth/api-keys', { handler: listKeys, request: {}, accepts: 'account', fixture });
describeAuthCases('DELETE /api/v1/auth/api-keys/{id}', {
  handler: revokeKey,
  request: () => ({ method: 'DELETE', params: { id: account.apiKeyId } }),
  accepts: 'account',
  fixture,
});
