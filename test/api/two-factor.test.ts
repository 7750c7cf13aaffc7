import { and, eq } from 'drizzle-orm';
import { encode } from 'next-auth/jwt';
import type { CredentialsConfig } from 'next-auth/providers/credentials';
import { Secret, TOTP } from 'otpauth';
import { beforeAll, describe, expect, it } from 'vitest';
import { POST as switchAccount } from '@/app/api/v1/auth/memberships/switch/route';
import { DELETE as endSessions } from '@/app/api/v1/auth/sessions/route';
import { POST as confirm } from '@/app/api/v1/auth/two-factor/confirm/route';
import { POST as enrol } from '@/app/api/v1/auth/two-factor/enrol/route';
import { DELETE as disable, GET as status } from '@/app/api/v1/auth/two-factor/route';
import { GET as listPhones } from '@/app/api/v1/phones/route';
import { PATCH as patchSecurity, GET as readSecurity } from '@/app/api/v1/settings/security/route';
import { type AuditAction, auditLog, type MemberRole, members } from '@/db/schema';
import { issueCode } from '@/lib/auth/codes';
import { signedInAccount } from '@/lib/auth/current-account';
import { authOptions } from '@/lib/auth/next-auth';
import {
  authorizeEmailCode,
  TWO_FACTOR_INVALID_ERROR,
  TWO_FACTOR_RATE_LIMITED_ERROR,
  TWO_FACTOR_REQUIRED_ERROR,
} from '@/lib/auth/sign-in';
import { appSecret } from '@/lib/config';
import { SECOND_FACTOR_ATTEMPTS, unsealTotpSecret } from '@/lib/members/two-factor';
import { createTestAccount, type TestAccount } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

// Sessions are encrypted with the app secret: a fixed one, so no secret file is written.
process.env.APP_SECRET ??= 'test-app-secret-0123456789abcdefghijklmnopqrstuvwxyz';
const { db } = withTestDatabase();

const APP_ORIGIN = 'http://localhost:3000';

/**
 * A current code of the secret, never used before. A code is accepted once, and none of an earlier
 * 30-second step after it: the member's last step is moved back first, as 30 seconds would. (Faking
 * Date would fake the embedded database's clock too.)
 */
async function totpCode(secret: string): Promise<string> {
  const sealed = await db().select({ id: members.id, sealed: members.totpSecretEncrypted }).from(members);
  const owner = sealed.find((row) => row.sealed && unsealTotpSecret(row.sealed) === secret);
  if (owner) await db().update(members).set({ totpLastStep: null }).where(eq(members.id, owner.id));
  return new TOTP({ secret: Secret.fromBase32(secret), digits: 6, period: 30, algorithm: 'SHA1' }).generate();
}

function wrongCode(secret: string): string {
  const right = new TOTP({ secret: Secret.fromBase32(secret) });
  // Neither this step's code nor its neighbours'.
  const near = [-30_000, 0, 30_000].map((offset) => right.generate({ timestamp: Date.now() + offset }));
  for (let n = 0; ; n++) {
    const candidate = String(n).padStart(6, '0');
    if (!near.includes(candidate)) return candidate;
  }
}

type Person = { accountId: string; email: string };

function emailCodeProvider() {
  const found = authOptions().providers.find((p) => (p as { options?: { id?: string } }).options?.id === 'email-code');
  return found as CredentialsConfig & { options: { authorize: CredentialsConfig['authorize'] } };
}

async function emailCode(email: string): Promise<string> {
  const { code } = await db().transaction((tx) => issueCode(tx, { purpose: 'sign_in', email }));
  return code;
}

async function cookieFor(user: { id: string; email: string; keyId: string | null } | null): Promise<string> {
  if (!user) throw new Error('sign-in refused');
  const token = await authOptions().callbacks!.jwt!({
    token: { sub: user.id, email: user.email },
    user: user as never,
    account: null,
  });
  return `next-auth.session-token=${await encode({ token, secret: appSecret(), maxAge: 3600 })}`;
}

/** An email-code sign-in of a member without a second factor. */
async function signIn(person: Person): Promise<string> {
  return cookieFor(await authorizeEmailCode(db(), { email: person.email, code: await emailCode(person.email) }));
}

async function addMember(account: TestAccount, role: MemberRole): Promise<Person> {
  const email = `${role}-${crypto.randomUUID()}@example.test`;
  await db().insert(members).values({ accountId: account.accountId, email, role });
  return { accountId: account.accountId, email };
}

function asSession(cookie: string) {
  return { headers: { cookie, origin: APP_ORIGIN } };
}

/** Enrols and confirms: the secret and the recovery codes. */
async function turnOn(cookie: string): Promise<{ secret: string; recoveryCodes: string[] }> {
  const started = await call(enrol, { method: 'POST', ...asSession(cookie) });
  expect(started.status).toBe(200);
  const confirmed = await call(confirm, { body: { code: await totpCode(started.body.secret) }, ...asSession(cookie) });
  expect(confirmed.status).toBe(200);
  return { secret: started.body.secret, recoveryCodes: confirmed.body.recovery_codes };
}

async function auditActions(accountId: string, action: AuditAction) {
  return db()
    .select({ details: auditLog.details, actorLabel: auditLog.actorLabel })
    .from(auditLog)
    .where(and(eq(auditLog.accountId, accountId), eq(auditLog.action, action)));
}

describe('enrolling', () => {
  it('answers a pending secret with its otpauth URL and QR code, on only once a code confirms it', async () => {
    const account = await createTestAccount(db());
    const cookie = await signIn(account);
    const started = await call(enrol, { method: 'POST', ...asSession(cookie) });
    expect(started.status).toBe(200);
    expect(started.body.secret).toMatch(/^[A-Z2-7]{32}$/);
    expect(started.body.otpauth_url).toMatch(/^otpauth:\/\/totp\/Simgate:/);
    expect(started.body.otpauth_url).toContain(`secret=${started.body.secret}`);
    expect(started.body.qr_data_url).toMatch(/^data:image\/png;base64,/);
    expect((await call(status, asSession(cookie))).body).toEqual({
      enabled: false,
      pending: true,
      required: false,
      recovery_codes_left: 0,
    });
    // The secret is kept sealed.
    const [row] = await db()
      .select({ sealed: members.totpSecretEncrypted })
      .from(members)
      .where(eq(members.email, account.email));
    expect(row?.sealed).toMatch(/^v1\./);
    expect(row?.sealed).not.toContain(started.body.secret);

    const wrong = await call(confirm, { body: { code: wrongCode(started.body.secret) }, ...asSession(cookie) });
    expect(wrong.status).toBe(400);
    expect(wrong.body.code).toBe('INVALID_CODE');
    expect(await auditActions(account.accountId, 'two_factor.check_failed')).toEqual([
      { details: { during: 'confirm' }, actorLabel: account.email },
    ]);

    const confirmed = await call(confirm, {
      body: { code: await totpCode(started.body.secret) },
      ...asSession(cookie),
    });
    expect(confirmed.status).toBe(200);
    expect(confirmed.body.recovery_codes).toHaveLength(10);
    expect(new Set(confirmed.body.recovery_codes).size).toBe(10);
    expect(confirmed.body.recovery_codes[0]).toMatch(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
    expect((await call(status, asSession(cookie))).body).toMatchObject({
      enabled: true,
      pending: false,
      recovery_codes_left: 10,
    });
    expect(await auditActions(account.accountId, 'two_factor.enabled')).toHaveLength(1);

    const again = await call(enrol, { method: 'POST', ...asSession(cookie) });
    expect(again.status).toBe(409);
    expect(again.body.code).toBe('CONFLICT');
  });

  it('refuses to confirm without an enrolment, and an API key on every two-factor route', async () => {
    const account = await createTestAccount(db());
    const cookie = await signIn(account);
    const early = await call(confirm, { body: { code: '123456' }, ...asSession(cookie) });
    expect(early.status).toBe(409);
    for (const [handler, options] of [
      [status, {}],
      [enrol, { method: 'POST' }],
      [confirm, { body: { code: '123456' } }],
      [disable, { method: 'DELETE', body: { code: '123456' } }],
    ] as const) {
      const res = await call(handler, { ...options, apiKey: account.apiKey });
      expect(res.status).toBe(403);
      expect(res.body.code).toBe('FORBIDDEN');
    }
  });
});

describe('signing in with two-factor on', () => {
  let account: TestAccount;
  let secret: string;
  let recoveryCodes: string[];
  beforeAll(async () => {
    account = await createTestAccount(db());
    ({ secret, recoveryCodes } = await turnOn(await signIn(account)));
  });

  it('asks for the second factor after a right email code, and keeps that code for the next try', async () => {
    const code = await emailCode(account.email);
    await expect(authorizeEmailCode(db(), { email: account.email, code })).rejects.toThrow(TWO_FACTOR_REQUIRED_ERROR);
    await expect(authorizeEmailCode(db(), { email: account.email, code, totp: wrongCode(secret) })).rejects.toThrow(
      TWO_FACTOR_INVALID_ERROR,
    );
    const failures = await auditActions(account.accountId, 'session.sign_in_failed');
    expect(failures.map((entry) => entry.details)).toContainEqual({
      method: 'email_code',
      reason: 'INVALID_SECOND_FACTOR',
    });
    // Through the provider next-auth calls, with the same email code.
    const user = await emailCodeProvider().options.authorize!(
      { email: account.email, code, totp: await totpCode(secret) },
      {} as never,
    );
    expect(user).toEqual({ id: account.accountId, email: account.email, keyId: null, memberId: expect.any(String) });
    const cookie = await cookieFor(user);
    expect((await call(listPhones, { headers: { cookie } })).status).toBe(200);
    // The email code is used up now.
    expect(await authorizeEmailCode(db(), { email: account.email, code, totp: await totpCode(secret) })).toBeNull();
    const signedIn = await auditActions(account.accountId, 'session.signed_in');
    expect(signedIn.map((entry) => entry.details)).toContainEqual({ method: 'email_code', second_factor: 'totp' });
  });

  it('accepts a TOTP code once', async () => {
    const totp = await totpCode(secret);
    expect(
      await authorizeEmailCode(db(), { email: account.email, code: await emailCode(account.email), totp }),
    ).not.toBeNull();
    await expect(
      authorizeEmailCode(db(), { email: account.email, code: await emailCode(account.email), totp }),
    ).rejects.toThrow(TWO_FACTOR_INVALID_ERROR);
  });

  it('accepts each recovery code once', async () => {
    const recovery = recoveryCodes[0]!;
    const user = await authorizeEmailCode(db(), {
      email: account.email,
      code: await emailCode(account.email),
      totp: recovery.toUpperCase(),
    });
    expect(user).toMatchObject({ id: account.accountId });
    expect(await auditActions(account.accountId, 'two_factor.recovery_code_used')).toHaveLength(1);
    await expect(
      authorizeEmailCode(db(), { email: account.email, code: await emailCode(account.email), totp: recovery }),
    ).rejects.toThrow(TWO_FACTOR_INVALID_ERROR);
    const cookie = await cookieFor(user);
    expect((await call(status, asSession(cookie))).body.recovery_codes_left).toBe(9);
  });

  it('turns off with a code, and email alone signs in again', async () => {
    const cookie = await cookieFor(
      await authorizeEmailCode(db(), {
        email: account.email,
        code: await emailCode(account.email),
        totp: await totpCode(secret),
      }),
    );
    const wrong = await call(disable, { method: 'DELETE', body: { code: wrongCode(secret) }, ...asSession(cookie) });
    expect(wrong.status).toBe(400);
    const off = await call(disable, { method: 'DELETE', body: { code: recoveryCodes[1]! }, ...asSession(cookie) });
    expect(off.status).toBe(204);
    expect((await call(status, asSession(cookie))).body).toMatchObject({ enabled: false, pending: false });
    expect(await auditActions(account.accountId, 'two_factor.disabled')).toEqual([
      { details: { with: 'recovery_code' }, actorLabel: account.email },
    ]);
    expect(
      await authorizeEmailCode(db(), { email: account.email, code: await emailCode(account.email) }),
    ).toMatchObject({ id: account.accountId });
    const again = await call(disable, { method: 'DELETE', body: { code: '123456' }, ...asSession(cookie) });
    expect(again.status).toBe(409);
  });
});

describe('required by the owner', () => {
  it('only an owner with two-factor on may require it', async () => {
    const account = await createTestAccount(db());
    const owner = await signIn(account);
    const admin = await signIn(await addMember(account, 'admin'));
    const early = await call(patchSecurity, {
      method: 'PATCH',
      body: { require_two_factor: true },
      ...asSession(owner),
    });
    expect(early.status).toBe(409);
    await turnOn(owner);
    const byAdmin = await call(patchSecurity, {
      method: 'PATCH',
      body: { require_two_factor: true },
      ...asSession(admin),
    });
    expect(byAdmin.status).toBe(403);
    const byOwner = await call(patchSecurity, {
      method: 'PATCH',
      body: { require_two_factor: true },
      ...asSession(owner),
    });
    expect(byOwner.status).toBe(200);
    expect(byOwner.body).toEqual({ require_two_factor: true });
    expect(await auditActions(account.accountId, 'security_settings.updated')).toEqual([
      { details: { require_two_factor: true }, actorLabel: account.email },
    ]);
    // A key without a role stands for the account: it may lift it.
    const byKey = await call(patchSecurity, {
      method: 'PATCH',
      body: { require_two_factor: false },
      apiKey: account.apiKey,
    });
    expect(byKey.status).toBe(200);
    expect((await call(readSecurity, { apiKey: account.apiKey })).body).toEqual({ require_two_factor: false });
    const unknownField = await call(patchSecurity, {
      method: 'PATCH',
      body: { require_two_factor: true, extra: 1 },
      apiKey: account.apiKey,
    });
    expect(unknownField.status).toBe(400);
  });

  it('a member without it may only enrol or sign out until it is on, and may not turn it off', async () => {
    const account = await createTestAccount(db());
    await turnOn(await signIn(account));
    expect(
      (await call(patchSecurity, { method: 'PATCH', body: { require_two_factor: true }, apiKey: account.apiKey }))
        .status,
    ).toBe(200);
    const operator = await addMember(account, 'operator');
    const cookie = await signIn(operator);

    const refused = await call(listPhones, asSession(cookie));
    expect(refused.status).toBe(403);
    expect(refused.body.code).toBe('FORBIDDEN');
    expect(refused.body.detail).toMatch(/^two-factor required/);
    expect((await call(readSecurity, asSession(cookie))).status).toBe(403);
    expect((await call(status, asSession(cookie))).body).toMatchObject({ enabled: false, required: true });
    // The dashboard's layout reads this and shows only the enrolment.
    expect((await signedInAccount(cookie))?.twoFactorPending).toBe(true);
    // API keys are not members: the requirement does not bind them.
    expect((await call(listPhones, { apiKey: account.apiKey })).status).toBe(200);

    await turnOn(cookie);
    expect((await call(listPhones, asSession(cookie))).status).toBe(200);
    expect((await signedInAccount(cookie))?.twoFactorPending).toBe(false);
    const off = await call(disable, { method: 'DELETE', body: { code: '123456' }, ...asSession(cookie) });
    expect(off.status).toBe(409);
    expect(off.body.detail).toMatch(/requires two-factor/);
  });

  it('lets a member who owes the second factor sign out', async () => {
    const account = await createTestAccount(db());
    await turnOn(await signIn(account));
    await call(patchSecurity, { method: 'PATCH', body: { require_two_factor: true }, apiKey: account.apiKey });
    const cookie = await signIn(await addMember(account, 'viewer'));
    expect((await call(endSessions, { method: 'DELETE', ...asSession(cookie) })).status).toBe(204);
    expect((await call(status, asSession(cookie))).status).toBe(401);
  });
});

describe('guessing', () => {
  it(`allows ${SECOND_FACTOR_ATTEMPTS} second-factor attempts per member, then answers 429`, async () => {
    const account = await createTestAccount(db());
    const cookie = await signIn(account);
    const { secret } = await turnOn(cookie);
    // turnOn spent one attempt.
    for (let attempt = 1; attempt < SECOND_FACTOR_ATTEMPTS; attempt++) {
      const res = await call(disable, { method: 'DELETE', body: { code: wrongCode(secret) }, ...asSession(cookie) });
      expect(res.status).toBe(400);
    }
    const limited = await call(disable, {
      method: 'DELETE',
      body: { code: await totpCode(secret) },
      ...asSession(cookie),
    });
    expect(limited.status).toBe(429);
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
    // Sign-in counts against the same limit: even the right code is refused for now.
    await expect(
      authorizeEmailCode(db(), {
        email: account.email,
        code: await emailCode(account.email),
        totp: await totpCode(secret),
      }),
    ).rejects.toThrow(TWO_FACTOR_RATE_LIMITED_ERROR);
    expect(await auditActions(account.accountId, 'two_factor.check_failed')).toHaveLength(SECOND_FACTOR_ATTEMPTS - 1);
  });
});

describe('switching to a membership with two-factor on', () => {
  it('asks for its code: refused without one and with a wrong one, switched with a right one', async () => {
    const [home, other] = [await createTestAccount(db()), await createTestAccount(db())];
    // One person, a member of both accounts; two-factor on only in `other`.
    const person = await addMember(other, 'operator');
    await db().insert(members).values({ accountId: home.accountId, email: person.email, role: 'viewer' });
    // A session on each account, by member: signing in by email code picks the earliest membership,
    // and the two may have joined in the same millisecond.
    const { memberCookie } = await import('../member-fixtures');
    const sessionOn = async (accountId: string) => {
      const [member] = await db()
        .select({ id: members.id })
        .from(members)
        .where(and(eq(members.accountId, accountId), eq(members.email, person.email)));
      return memberCookie(accountId, member!.id);
    };
    const otherCookie = await sessionOn(other.accountId);
    const { secret } = await turnOn(otherCookie);
    // A session on `home`, as the header's switcher would start from.
    const homeCookie = await sessionOn(home.accountId);
    const to = (totp?: string) =>
      call(switchAccount, {
        body: totp ? { account_id: other.accountId, totp } : { account_id: other.accountId },
        ...asSession(homeCookie),
      });

    const without = await to();
    expect(without.status).toBe(403);
    expect(without.body).toMatchObject({ code: 'FORBIDDEN', second_factor_required: true });
    const wrong = await to(wrongCode(secret));
    expect(wrong.status).toBe(403);
    expect(wrong.body.second_factor_required).toBe(true);
    expect(await auditActions(other.accountId, 'two_factor.check_failed')).toHaveLength(1);

    const right = await to(await totpCode(secret));
    expect(right.status).toBe(200);
    expect(right.body).toMatchObject({ account_id: other.accountId, current: true });
    expect(right.headers.get('set-cookie')).toMatch(/next-auth\.session-token=/);
    // Back to `home`, whose membership has no second factor: no code asked.
    const back = await call(switchAccount, {
      body: { account_id: home.accountId },
      ...asSession(otherCookie),
    });
    expect(back.status).toBe(200);
  });
});
