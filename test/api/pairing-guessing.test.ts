import { eq } from 'drizzle-orm';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { POST as registerAppDevice } from '@/app/api/mobile/v1/device/route';
import { POST as requestSignInCode } from '@/app/api/v1/auth/sign-in/request-code/route';
import { POST as registerDevice } from '@/app/api/v1/phones/register-device/route';
import { rateLimitHits } from '@/db/schema';
import { rateLimitAddress } from '@/lib/rate-limit/client-ip';
import { createTestAccount, testNumber } from '../fixtures';
import { call, fromSocket } from '../http';
import { captureLogs } from '../logs';
import { withTestDatabase } from '../setup-db';
import { newPairingCode } from '../smsgate-app';

const { db } = withTestDatabase();
const logs = captureLogs();

function signInByCode(code: string, address: string) {
  return call(registerAppDevice, {
    method: 'POST',
    path: '/api/mobile/v1/device',
    body: { name: 'Google/pixel', simCards: [] },
    headers: { ...fromSocket(address), authorization: `Code ${code}` },
  });
}

/** A code that is not the live one: the live code with its last digit turned. */
function wrongCode(code: string): string {
  return `${code.slice(0, -1)}${(Number(code.at(-1)) + 1) % 10}`;
}

beforeEach(async () => {
  // Each test starts with no wrong codes counted on the instance.
  await db().delete(rateLimitHits).where(eq(rateLimitHits.bucket, 'pairing-failed'));
});

afterEach(() => {
  vi.unstubAllEnvs();
});

describe('per-IP limits key IPv6 by its /64 and IPv4-mapped addresses by their IPv4', () => {
  it('rateLimitAddress groups a /64, unmaps ::ffff:a.b.c.d and keeps what does not parse', () => {
    expect(rateLimitAddress('2001:db8:1:2:aaaa:bbbb:cccc:dddd')).toBe('2001:db8:1:2::/64');
    expect(rateLimitAddress('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(rateLimitAddress('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(rateLimitAddress('::1')).toBe('::/64');
    expect(rateLimitAddress('::ffff:198.51.100.7')).toBe('198.51.100.7');
    expect(rateLimitAddress('::ffff:c633:6407')).toBe('198.51.100.7');
    expect(rateLimitAddress('198.51.100.7')).toBe('198.51.100.7');
    expect(rateLimitAddress('unknown')).toBe('unknown');
  });

  it('sign-ins by code from one /64 share the registration limit; another /64 has its own', async () => {
    vi.stubEnv('REGISTER_IP_RATE_LIMIT', '2');
    expect((await signInByCode('11111111', '2001:db8:5:6::1')).status).toBe(401);
    expect((await signInByCode('11111111', '2001:db8:5:6:ffff::2')).status).toBe(401);
    const third = await signInByCode('11111111', '2001:db8:5:6:1234:5678:9abc:def0');
    expect(third.status).toBe(429);
    expect(third.body.code).toBe('RATE_LIMITED');
    expect((await signInByCode('11111111', '2001:db8:5:7::1')).status).toBe(401);
  });

  it('an IPv4-mapped address counts as its IPv4 address', async () => {
    vi.stubEnv('REGISTER_IP_RATE_LIMIT', '1');
    expect((await signInByCode('11111111', '203.0.113.40')).status).toBe(401);
    expect((await signInByCode('11111111', '::ffff:203.0.113.40')).status).toBe(429);
  });

  it('register-device and sign-in code requests group a /64 too', async () => {
    vi.stubEnv('REGISTER_IP_RATE_LIMIT', '1');
    const register = (address: string) =>
      call(registerDevice, { body: { phone_number: testNumber() }, headers: fromSocket(address) });
    expect((await register('2001:db8:9:9::1')).status).toBe(201);
    expect((await register('2001:db8:9:9::2')).status).toBe(429);
    const signIn = (address: string) =>
      call(requestSignInCode, {
        body: { email: `user-${crypto.randomUUID()}@example.test` },
        headers: fromSocket(address),
      });
    expect((await signIn('2001:db8:9:a::1')).status).toBe(202);
    expect((await signIn('2001:db8:9:a::2')).status).toBe(429);
  });
});

describe('wrong pairing codes are capped for the whole instance (PAIRING_FAILURES_PER_MINUTE)', () => {
  it('past the cap every sign-in by code answers 429 with Retry-After, from any address, and it is logged once', async () => {
    vi.stubEnv('PAIRING_FAILURES_PER_MINUTE', '3');
    const account = await createTestAccount(db());
    const code = await newPairingCode(account);
    for (let i = 1; i <= 3; i++) {
      expect((await signInByCode(wrongCode(code), `198.51.100.${i}`)).status).toBe(401);
    }
    const refused = await signInByCode(wrongCode(code), '198.51.100.4');
    expect(refused.status).toBe(429);
    expect(refused.body.code).toBe('RATE_LIMITED');
    expect(refused.body.message).toContain('wrong pairing codes');
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(60);
    // The right code waits too: a guesser cannot tell a hit from a miss while the cap is full.
    expect((await signInByCode(code, '198.51.100.5')).status).toBe(429);
    const warnings = logs.entries().filter((entry) => String(entry.msg).includes('PAIRING_FAILURES_PER_MINUTE'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ level: 40, cap: 3 });
    // When the minute has passed, the code still pairs.
    await db()
      .update(rateLimitHits)
      .set({ createdAt: new Date(Date.now() - 61_000) })
      .where(eq(rateLimitHits.bucket, 'pairing-failed'));
    expect((await signInByCode(code, '198.51.100.5')).status).toBe(201);
  });

  it('0 turns the cap off', async () => {
    vi.stubEnv('PAIRING_FAILURES_PER_MINUTE', '0');
    for (let i = 1; i <= 5; i++) expect((await signInByCode('22222222', `198.51.100.${20 + i}`)).status).toBe(401);
  });
});

describe('a code dies after PAIRING_CODE_MAX_FAILURES wrong codes since it was issued', () => {
  it('the right code answers 401 once that many wrong codes were tried, and a new code works', async () => {
    vi.stubEnv('PAIRING_FAILURES_PER_MINUTE', '0');
    vi.stubEnv('PAIRING_CODE_MAX_FAILURES', '3');
    const account = await createTestAccount(db());
    const code = await newPairingCode(account);
    for (let i = 1; i <= 3; i++) {
      expect((await signInByCode(wrongCode(code), `2001:db8:${i}::1`)).status).toBe(401);
    }
    const voided = await signInByCode(code, '198.51.100.30');
    expect(voided.status).toBe(401);
    expect(voided.body.message).toContain('too many wrong codes');
    // Void for good, even once the failures are forgotten.
    await db().delete(rateLimitHits).where(eq(rateLimitHits.bucket, 'pairing-failed'));
    expect((await signInByCode(code, '198.51.100.30')).status).toBe(401);
    const fresh = await newPairingCode(account);
    expect((await signInByCode(fresh, '198.51.100.30')).status).toBe(201);
  });

  it('wrong codes tried before a code was issued do not count against it', async () => {
    vi.stubEnv('PAIRING_FAILURES_PER_MINUTE', '0');
    vi.stubEnv('PAIRING_CODE_MAX_FAILURES', '2');
    for (let i = 1; i <= 3; i++) expect((await signInByCode('33333333', `198.51.100.${40 + i}`)).status).toBe(401);
    const account = await createTestAccount(db());
    const code = await newPairingCode(account);
    expect((await signInByCode(wrongCode(code), '198.51.100.50')).status).toBe(401);
    expect((await signInByCode(code, '198.51.100.51')).status).toBe(201);
  });
});
