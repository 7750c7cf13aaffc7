import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GET as listPhones } from '@/app/api/v1/phones/route';
import { MAX_BUCKETS, resetKeyBuckets, takeKeyToken } from '@/lib/rate-limit/key-bucket';
import { createTestAccount, type TestAccount } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

let first: TestAccount;
let second: TestAccount;
beforeAll(async () => {
  first = await createTestAccount(db());
  second = await createTestAccount(db());
});
afterEach(() => {
  process.env.API_KEY_RATE_LIMIT = '0';
  resetKeyBuckets();
});

describe('the per-key rate limit', () => {
  it('keeps a busy key’s bucket when a flood of other keys fills the table', () => {
    process.env.API_KEY_RATE_LIMIT = '1';
    takeKeyToken('busy', 0);
    for (let i = 0; i < MAX_BUCKETS; i++) {
      takeKeyToken(`flood-${i}`, 0);
      // The busy key is used all along, so it is never the least recently used.
      if (i % 1000 === 0) expect(() => takeKeyToken('busy', 0)).toThrow(/at most 1 a second/);
    }
    expect(() => takeKeyToken('busy', 0)).toThrow(/at most 1 a second/);
  });

  it('refills at the limit per second, allowing bursts of as many', () => {
    process.env.API_KEY_RATE_LIMIT = '2';
    takeKeyToken('k', 0);
    takeKeyToken('k', 0);
    expect(() => takeKeyToken('k', 0)).toThrow(/at most 2 a second/);
    takeKeyToken('k', 500);
    expect(() => takeKeyToken('k', 500)).toThrow();
    takeKeyToken('k', 10_000);
    takeKeyToken('k', 10_000);
    expect(() => takeKeyToken('k', 10_000)).toThrow();
  });

  it('answers 429 RATE_LIMITED with Retry-After past the limit, for that key only', async () => {
    process.env.API_KEY_RATE_LIMIT = '3';
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await call(listPhones, { apiKey: first.apiKey }));
    expect(answers.slice(0, 3).map((res) => res.status)).toEqual([200, 200, 200]);
    const limited = answers[3]!;
    expect(limited.status).toBe(429);
    expect(limited.contentType).toBe('application/problem+json');
    expect(limited.body.code).toBe('RATE_LIMITED');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await call(listPhones, { apiKey: second.apiKey })).status).toBe(200);
  });

  it('is off at 0', async () => {
    process.env.API_KEY_RATE_LIMIT = '0';
    for (let i = 0; i < 20; i++) expect((await call(listPhones, { apiKey: first.apiKey })).status).toBe(200);
  });
});
