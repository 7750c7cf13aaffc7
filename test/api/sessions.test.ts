import { encode } from 'next-auth/jwt';
import { describe, expect, it } from 'vitest';
import { DELETE as revokeKey } from '@/app/api/v1/auth/api-keys/[id]/route';
import { POST as createKey } from '@/app/api/v1/auth/api-keys/route';
import { DELETE as endSessions } from '@/app/api/v1/auth/sessions/route';
import { GET as listPhones } from '@/app/api/v1/phones/route';
import { issueCode } from '@/lib/auth/codes';
import { signedInAccount } from '@/lib/auth/current-account';
import { authOptions } from '@/lib/auth/next-auth';
import { authorizeApiKey, authorizeEmailCode } from '@/lib/auth/sign-in';
import { appSecret } from '@/lib/config';
import { createTestAccount, type TestAccount } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

// Sessions are encrypted with the app secret: a fixed one, so no secret file is written.
process.env.APP_SECRET ??= 'test-app-secret-0123456789abcdefghijklmnopqrstuvwxyz';
const { db } = withTestDatabase();

const APP_ORIGIN = 'http://localhost:3000';

/** A session cookie as the browser gets it: authorize, then next-auth's jwt callback, then the cookie. */
async function cookieFor(user: { id: string; email: string; keyId: string | null } | null): Promise<string> {
  if (!user) throw new Error('sign-in refused');
  const token = await authOptions().callbacks!.jwt!({
    token: { sub: user.id, email: user.email },
    user: user as never,
    account: null,
  });
  return `next-auth.session-token=${await encode({ token, secret: appSecret(), maxAge: 3600 })}`;
}

/** An email-code sign-in; the code is issued as the sign-in request issues it (mail delivery is tested elsewhere). */
async function emailCodeSession(account: TestAccount): Promise<string> {
  const { code } = await db().transaction((tx) => issueCode(tx, { purpose: 'sign_in', email: account.email }));
  return cookieFor(await authorizeEmailCode(db(), { email: account.email, code }));
}

async function apiKeySession(apiKey: string): Promise<string> {
  return cookieFor(await authorizeApiKey(db(), { key: apiKey }));
}

async function phonesStatus(cookie: string): Promise<number> {
  return (await call(listPhones, { headers: { cookie } })).status;
}

/** What the dashboard's sign-out does before next-auth clears the cookie. */
async function signOut(cookie: string) {
  return call(endSessions, { method: 'DELETE', headers: { cookie, origin: APP_ORIGIN } });
}

describe('signing out', () => {
  it('makes a copy of the session cookie taken before it answer 401', async () => {
    const account = await createTestAccount(db());
    const cookie = await emailCodeSession(account);
    const captured = cookie;
    expect(await phonesStatus(captured)).toBe(200);
    expect(await signedInAccount(captured)).toEqual({
      accountId: account.accountId,
      email: account.email,
      memberId: expect.any(String),
      role: 'owner',
      twoFactorPending: false,
    });

    expect((await signOut(cookie)).status).toBe(204);

    const after = await call(listPhones, { headers: { cookie: captured } });
    expect(after.status).toBe(401);
    expect(after.body.code).toBe('UNAUTHENTICATED');
    expect(await signedInAccount(captured)).toBeNull();
    // Signing out twice is a 401, which the dashboard treats as already signed out.
    expect((await signOut(captured)).status).toBe(401);
  });

  it('is refused from another site, and the session lives on', async () => {
    const account = await createTestAccount(db());
    const cookie = await emailCodeSession(account);
    const forged = await call(endSessions, { method: 'DELETE', headers: { cookie, origin: 'https://evil.example' } });
    expect(forged.status).toBe(403);
    expect(await phonesStatus(cookie)).toBe(200);
  });
});

describe('DELETE /api/v1/auth/sessions (sign out everywhere)', () => {
  it('ends an email-code session and an API-key session at once, and leaves API keys working', async () => {
    const account = await createTestAccount(db());
    const byCode = await emailCodeSession(account);
    const byKey = await apiKeySession(account.apiKey);
    expect([await phonesStatus(byCode), await phonesStatus(byKey)]).toEqual([200, 200]);

    const res = await call(endSessions, { method: 'DELETE', apiKey: account.apiKey });
    expect(res.status).toBe(204);

    expect([await phonesStatus(byCode), await phonesStatus(byKey)]).toEqual([401, 401]);
    expect((await call(listPhones, { apiKey: account.apiKey })).status).toBe(200);
  });

  it('lets a session opened after it work', async () => {
    const account = await createTestAccount(db());
    const before = await emailCodeSession(account);
    expect((await signOut(before)).status).toBe(204);
    expect((await signOut(await emailCodeSession(account))).status).toBe(204);

    const fresh = await emailCodeSession(account);
    const freshByKey = await apiKeySession(account.apiKey);
    expect([await phonesStatus(fresh), await phonesStatus(freshByKey)]).toEqual([200, 200]);
    expect(await signedInAccount(fresh)).toEqual({
      accountId: account.accountId,
      email: account.email,
      memberId: expect.any(String),
      role: 'owner',
      twoFactorPending: false,
    });
    expect(await phonesStatus(before)).toBe(401);
  });

  it('ends only the calling account’s sessions', async () => {
    const [account, bystander] = [await createTestAccount(db()), await createTestAccount(db())];
    const bystanderSession = await emailCodeSession(bystander);
    expect((await call(endSessions, { method: 'DELETE', apiKey: account.apiKey })).status).toBe(204);
    expect(await phonesStatus(bystanderSession)).toBe(200);
  });

  it('takes an account credential, not a device key', async () => {
    const account = await createTestAccount(db());
    const session = await emailCodeSession(account);
    const res = await call(endSessions, { method: 'DELETE', apiKey: account.deviceKey });
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('WRONG_KEY_KIND');
    expect((await call(endSessions, { method: 'DELETE' })).status).toBe(401);
    expect(await phonesStatus(session)).toBe(200);
  });
});

describe('the session check', () => {
  it('still ends key-opened sessions when every key is revoked, and a fresh email-code session works', async () => {
    const account = await createTestAccount(db());
    const second = await call(createKey, { body: { name: 'second' }, apiKey: account.apiKey });
    expect(second.status).toBe(201);
    const byFirstKey = await apiKeySession(account.apiKey);
    const bySecondKey = await apiKeySession(second.body.key);
    const byCode = await emailCodeSession(account);

    for (const id of [account.apiKeyId, second.body.id]) {
      const revoked = await call(revokeKey, {
        method: 'DELETE',
        params: { id },
        headers: { cookie: byCode, origin: APP_ORIGIN },
      });
      expect(revoked.status).toBe(204);
    }

    expect([await phonesStatus(byFirstKey), await phonesStatus(bySecondKey)]).toEqual([401, 401]);
    expect(await phonesStatus(byCode)).toBe(200);
    expect(await phonesStatus(await emailCodeSession(account))).toBe(200);
  });

  it('refuses a token without a session version, or with one the account never issued', async () => {
    const account = await createTestAccount(db());
    const token = (claims: Record<string, unknown>, secret = appSecret()) =>
      encode({ token: { accountId: account.accountId, ...claims }, secret, maxAge: 3600 });
    const refused = [
      await token({}),
      await token({ sessionVersion: null }),
      await token({ sessionVersion: '0' }),
      await token({ sessionVersion: 1 }),
      await token({ sessionVersion: -1 }),
      await token({ sessionVersion: 0, accountId: 'not-a-uuid' }),
      await token({ sessionVersion: 0 }, 'x'.repeat(40)),
    ];
    for (const value of refused) {
      const cookie = `next-auth.session-token=${value}`;
      expect(await phonesStatus(cookie)).toBe(401);
      expect(await signedInAccount(cookie)).toBeNull();
    }
    // The same claims with the account's current version are a session.
    expect(await phonesStatus(`next-auth.session-token=${await token({ sessionVersion: 0 })}`)).toBe(200);
  });
});
