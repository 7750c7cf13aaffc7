import { describe, expect, it } from 'vitest';
import type { PostOutcome } from './http-client';
import { MAX_ATTEMPTS, nextAttemptAt, parseRetryAfter, RETRY_DELAYS_MS, verdictOf } from './retry-policy';

const answer = (statusCode: number | null, refused = false): PostOutcome => ({
  statusCode,
  latencyMs: 5,
  error: statusCode === null ? 'ECONNREFUSED' : null,
  responseBody: null,
  retryAfter: null,
  refused,
});

describe('verdictOf', () => {
  it('succeeds on 2xx', () => {
    for (const code of [200, 201, 202, 204, 299]) expect(verdictOf(answer(code))).toBe('succeeded');
  });
  it('retries 5xx, 429, 408, 3xx and network errors', () => {
    for (const code of [500, 502, 503, 504, 429, 408, 301, 302, 307, 308])
      expect(verdictOf(answer(code))).toBe('retry');
    expect(verdictOf(answer(null))).toBe('retry');
  });
  it('fails for good on other 4xx and on an address the guard refused', () => {
    for (const code of [400, 401, 403, 404, 410, 413, 422]) expect(verdictOf(answer(code))).toBe('failed');
    expect(verdictOf(answer(null, true))).toBe('failed');
  });
});

describe('the retry schedule', () => {
  const now = new Date('2025-01-01T00:00:00Z');

  it('spans about a day over ten attempts', () => {
    expect(MAX_ATTEMPTS).toBe(10);
    const total = RETRY_DELAYS_MS.reduce((sum, delay) => sum + delay, 0);
    expect(total / 3_600_000).toBeGreaterThan(23);
    expect(total / 3_600_000).toBeLessThan(25);
  });

  it('waits each delay with ±20 % jitter, and stops after the last', () => {
    RETRY_DELAYS_MS.forEach((delay, index) => {
      const low = nextAttemptAt(index + 1, now, null, () => 0)!.getTime() - now.getTime();
      const high = nextAttemptAt(index + 1, now, null, () => 1)!.getTime() - now.getTime();
      expect(low).toBe(Math.round(delay * 0.8));
      expect(high).toBe(Math.round(delay * 1.2));
    });
    expect(nextAttemptAt(MAX_ATTEMPTS, now)).toBeNull();
  });

  it('lets Retry-After push a retry later, within 8 h, never earlier', () => {
    const later = nextAttemptAt(1, now, '900', () => 0.5)!;
    expect(later.getTime() - now.getTime()).toBe(900_000);
    const capped = nextAttemptAt(1, now, String(10 * 24 * 3600), () => 0.5)!;
    expect(capped.getTime() - now.getTime()).toBe(8 * 3_600_000);
    const ignoredShort = nextAttemptAt(3, now, '1', () => 0.5)!;
    expect(ignoredShort.getTime() - now.getTime()).toBe(10 * 60_000);
  });

  it('reads Retry-After as seconds or an HTTP date', () => {
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:05:00 GMT', now)).toBe(300_000);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });
});
