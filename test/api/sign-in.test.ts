import net, { type AddressInfo } from 'node:net';
import { eq, sql } from 'drizzle-orm';
import { encode } from 'next-auth/jwt';
import type { CredentialsConfig } from 'next-auth/providers/credentials';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DELETE as revokeKey } from '@/app/api/v1/auth/api-keys/[id]/route';
import { POST as createKey, GET as listKeys } from '@/app/api/v1/auth/api-keys/route';
import { POST as requestCode } from '@/app/api/v1/auth/sign-in/request-code/route';
import { verificationCodes } from '@/db/schema';
import { authOptions, SESSION_MAX_AGE_SECONDS } from '@/lib/auth/next-auth';
import { sessionPrincipal } from '@/lib/auth/session';
import { authorizeApiKey, authorizeEmailCode, CODE_EXPIRED_ERROR } from '@/lib/auth/sign-in';
import { appSecret } from '@/lib/config';
import { listDevInbox } from '@/lib/dev-inbox/store';
import { createTestAccount, type TestAccount } from '../fixtures';
import { call } from '../http';
import { emailedCode as sharedEmailedCode, nextMail as sharedNextMail } from '../mail';
import { withTestDatabase } from '../setup-db';

// Sessions are encrypted with the app secret: a fixed one, so no secret file is written.
process.env.APP_SECRET ??= 'test-app-secret-0123456789abcdefghijklmnopqrstuvwxyz';
const { db } = withTestDatabase();

let account: TestAccount;
let other: TestAccount;
beforeAll(async () => {
  account = await createTestAccount(db());
  other = await createTestAccount(db());
});
afterEach(() => {
  vi.unstubAllEnvs();
});

const APP_ORIGIN = 'http://localhost:3000';

const nextMail = (email: string, request: () => Promise<unknown>) => sharedNextMail(db(), email, request);
const emailedCode = (email: string) => sharedEmailedCode(db(), email);

/** An SMTP URL nothing listens at: a port that was free a moment ago. */
async function downSmtpUrl(): Promise<string> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `smtp://127.0.0.1:${port}`;
}

function provider(id: 'email-code' | 'api-key') {
  // next-auth merges a provider's options over its defaults when it starts: the id is in `options`.
  const found = authOptions().providers.find((p) => (p as { options?: { id?: string } }).options?.id === id) as
    | (CredentialsConfig & { options: { authorize: CredentialsConfig['authorize'] } })
    | undefined;
  if (!found) throw new Error(`no ${id} provider`);
  return found;
}

/** What next-auth does after authorize: the jwt callback fills the token, which becomes the cookie. */
async function cookieFor(user: { id: string; email: string; keyId: string | null }, maxAge = 3600) {
  const jwt = authOptions().callbacks!.jwt!;
  const token = await jwt({ token: { sub: user.id, email: user.email }, user: user as never, account: null });
  return `next-auth.session-token=${await encode({ token, secret: appSecret(), maxAge })}`;
}

describe('POST /api/v1/auth/sign-in/request-code', () => {
  it('emails a code to an account email (the dev inbox, without SMTP) and answers 202', async () => {
    const mail = await nextMail(account.email, async () => {
      const res = await call(requestCode, { body: { email: `  ${account.email.toUpperCase()} ` } });
      expect(res.status).toBe(202);
      expect(res.body).toEqual({ status: 'code_sent', expires_at: expect.stringMatching(/Z$/) });
    });
    expect(mail).toMatchObject({ channel: 'email', to: account.email, code: expect.stringMatching(/^\d{6}$/) });
    expect(mail.subject).toContain(mail.code!);
  });

  it('answers the same 202 for an email without an account, and sends nothing', async () => {
    const email = `nobody-${crypto.randomUUID()}@example.test`;
    const res = await call(requestCode, { body: { email } });
    expect(res.status).toBe(202);
    expect(Object.keys(res.body).sort()).toEqual(['expires_at', 'status']);
    expect(res.body.status).toBe('code_sent');
    // Emails go out in the order asked for: once a later one arrived, this one would have too.
    await emailedCode((await createTestAccount(db())).email);
    expect(await listDevInbox(db(), { to: email, limit: 5 })).toEqual([]);
  });

  it('answers the same 202 whether the email has an account or not when the SMTP server is down', async () => {
    vi.stubEnv('SMTP_URL', await downSmtpUrl());
    const unknown = await call(requestCode, { body: { email: `nobody-${crypto.randomUUID()}@example.test` } });
    const known = await call(requestCode, { body: { email: (await createTestAccount(db())).email } });
    for (const res of [unknown, known]) {
      expect(res.status).toBe(202);
      expect(res.contentType).toBe(unknown.contentType);
      expect(Object.keys(res.body).sort()).toEqual(['expires_at', 'status']);
      expect(res.body.status).toBe('code_sent');
    }
  });

  it('answers 400 for a bad email', async () => {
    for (const email of ['', 'not-an-email', null]) {
      const res = await call(requestCode, { body: { email } });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].path).toBe('email');
    }
  });

  it('limits requests per email, whether or not it has an account', async () => {
    vi.stubEnv('VERIFICATION_RATE_LIMIT', '1');
    for (const email of [other.email, `ghost-${crypto.randomUUID()}@example.test`]) {
      expect((await call(requestCode, { body: { email } })).status).toBe(202);
      const limited = await call(requestCode, { body: { email } });
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    }
  });
});

describe('the email-code provider', () => {
  it('signs in with the emailed code, once', async () => {
    const code = await emailedCode(account.email);
    const user = await provider('email-code').options.authorize!({ email: account.email, code }, {} as never);
    expect(user).toEqual({ id: account.accountId, email: account.email, keyId: null, memberId: expect.any(String) });
    expect(await authorizeEmailCode(db(), { email: account.email, code })).toBeNull();
  });

  it('refuses a wrong code (null), then treats a burnt code as expired', async () => {
    const code = await emailedCode(account.email);
    const wrong = code === '000000' ? '111111' : '000000';
    for (let attempt = 0; attempt < 5; attempt++) {
      expect(await authorizeEmailCode(db(), { email: account.email, code: wrong })).toBeNull();
    }
    await expect(authorizeEmailCode(db(), { email: account.email, code })).rejects.toThrow(CODE_EXPIRED_ERROR);
  });

  it('refuses an expired code', async () => {
    const code = await emailedCode(account.email);
    await db()
      .update(verificationCodes)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(verificationCodes.email, account.email));
    await expect(authorizeEmailCode(db(), { email: account.email, code })).rejects.toThrow(CODE_EXPIRED_ERROR);
  });

  it('refuses a code sent to another email, and malformed input', async () => {
    const [owner, bystander] = [await createTestAccount(db()), await createTestAccount(db())];
    await emailedCode(bystander.email);
    const code = await emailedCode(owner.email);
    expect(await authorizeEmailCode(db(), { email: bystander.email, code })).toBeNull();
    expect(await authorizeEmailCode(db(), { email: 'nope', code })).toBeNull();
    expect(await authorizeEmailCode(db(), { email: owner.email, code: 12 })).toBeNull();
    expect(await authorizeEmailCode(db(), {})).toBeNull();
    // The right pair still works after those misses.
    expect(await authorizeEmailCode(db(), { email: owner.email, code })).toMatchObject({ id: owner.accountId });
  });
});

describe('the api-key provider', () => {
  it('signs in with an account key, remembering the key', async () => {
    const user = await provider('api-key').options.authorize!({ key: ` ${account.apiKey} ` }, {} as never);
    expect(user).toEqual({ id: account.accountId, email: account.email, keyId: account.apiKeyId, memberId: null });
  });

  it('refuses a device key, a revoked key, an unknown key and garbage', async () => {
    const revoked = await createTestAccount(db());
    await call(revokeKey, { method: 'DELETE', params: { id: revoked.apiKeyId }, apiKey: revoked.apiKey });
    for (const key of [account.deviceKey, revoked.apiKey, `sk_${'A'.repeat(40)}`, 'hello', undefined]) {
      expect(await authorizeApiKey(db(), { key })).toBeNull();
    }
  });
});

describe('the session', () => {
  it('carries the account id in the JWT and the session', async () => {
    const options = authOptions();
    expect(options.session).toMatchObject({ strategy: 'jwt', maxAge: SESSION_MAX_AGE_SECONDS });
    const token = await options.callbacks!.jwt!({
      token: {},
      user: { id: account.accountId, email: account.email, keyId: null } as never,
      account: null,
    });
    expect(token).toMatchObject({ accountId: account.accountId });
    const session = await options.callbacks!.session!({
      session: { expires: new Date().toISOString(), user: { email: account.email } },
      token,
    } as never);
    expect(session).toMatchObject({ accountId: account.accountId });
  });

  it('a cookie from an email-code sign-in is an account credential for the API', async () => {
    const code = await emailedCode(account.email);
    const user = await authorizeEmailCode(db(), { email: account.email, code });
    const cookie = await cookieFor(user!);
    const req = new Request(`${APP_ORIGIN}/api/v1/phones`, { headers: { cookie } });
    expect(await sessionPrincipal(req)).toEqual({
      kind: 'account',
      accountId: account.accountId,
      keyId: null,
      via: 'session',
      email: account.email,
      memberId: user!.memberId,
      role: 'owner',
    });
    const list = await call(listKeys, { headers: { cookie } });
    expect(list.status).toBe(200);
    const created = await call(createKey, {
      body: { name: 'from the panel' },
      headers: { cookie, origin: APP_ORIGIN },
    });
    expect(created.status).toBe(201);
    const crossSite = await call(createKey, {
      body: { name: 'x' },
      headers: { cookie, origin: 'https://evil.example' },
    });
    expect(crossSite.status).toBe(403);
    expect(crossSite.body.code).toBe('FORBIDDEN');
  });

  it('takes the origin the browser addressed (Host) as the app’s own, and nothing else', async () => {
    const cookie = await cookieFor({ id: account.accountId, email: account.email, keyId: null });
    // Next may build req.url from its own bind address while the browser used another host name.
    const addressed = await call(createKey, {
      body: { name: 'via 127.0.0.1' },
      headers: { cookie, host: '127.0.0.1:3107', origin: 'http://127.0.0.1:3107' },
    });
    expect(addressed.status).toBe(201);
    const otherHost = await call(createKey, {
      body: { name: 'x' },
      headers: { cookie, host: '127.0.0.1:3107', origin: 'http://127.0.0.1:9999' },
    });
    expect(otherHost.status).toBe(403);
    const noOrigin = await call(createKey, { body: { name: 'x' }, headers: { cookie } });
    expect(noOrigin.status).toBe(403);
  });

  it('honours the secure cookie name and cookies split in chunks', async () => {
    const token = await encode({
      token: { accountId: other.accountId, sessionVersion: 0 },
      secret: appSecret(),
      maxAge: 3600,
    });
    const secure = new Request(APP_ORIGIN, { headers: { cookie: `a=1; __Secure-next-auth.session-token=${token}` } });
    expect((await sessionPrincipal(secure))?.accountId).toBe(other.accountId);
    const half = Math.floor(token.length / 2);
    const chunked = new Request(APP_ORIGIN, {
      headers: {
        cookie: `next-auth.session-token.0=${token.slice(0, half)}; next-auth.session-token.1=${token.slice(half)}`,
      },
    });
    expect((await sessionPrincipal(chunked))?.accountId).toBe(other.accountId);
  });

  it('ends when it expires', async () => {
    const user = { id: account.accountId, email: account.email, keyId: null };
    const expired = await cookieFor(user, -60);
    expect(await sessionPrincipal(new Request(APP_ORIGIN, { headers: { cookie: expired } }))).toBeNull();
    expect((await call(listKeys, { headers: { cookie: expired } })).status).toBe(401);
  });

  it('opened with an API key, it ends when that key is revoked', async () => {
    const owner = await createTestAccount(db());
    const user = await authorizeApiKey(db(), { key: owner.apiKey });
    const cookie = await cookieFor(user!);
    expect((await call(listKeys, { headers: { cookie } })).status).toBe(200);
    await call(revokeKey, { method: 'DELETE', params: { id: owner.apiKeyId }, apiKey: owner.apiKey });
    const after = await call(listKeys, { headers: { cookie } });
    expect(after.status).toBe(401);
  });

  it('the second account’s session sees only its own keys', async () => {
    const user = await authorizeApiKey(db(), { key: other.apiKey });
    const list = await call(listKeys, { headers: { cookie: await cookieFor(user!) } });
    expect(list.body.data.map((k: { id: string }) => k.id)).toEqual([other.apiKeyId]);
    const revoke = await call(revokeKey, {
      method: 'DELETE',
      params: { id: account.apiKeyId },
      headers: { cookie: await cookieFor(user!), origin: APP_ORIGIN },
    });
    expect(revoke.status).toBe(404);
  });

  it('an API key header wins over a cookie', async () => {
    const user = await authorizeApiKey(db(), { key: other.apiKey });
    const res = await call(listKeys, { apiKey: account.apiKey, headers: { cookie: await cookieFor(user!) } });
    expect(res.body.data.map((k: { id: string }) => k.id)).toContain(account.apiKeyId);
  });
});
