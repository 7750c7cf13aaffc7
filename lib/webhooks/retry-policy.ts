import type { PostOutcome } from './http-client';

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * Waits before each retry: the first attempt is immediate, the last retry comes about 24 h after
 * it (30 s + 2 m + 10 m + 30 m + 1 h + 2 h + 4 h + 8 h + 8 h ≈ 23 h 43 m before jitter).
 */
export const RETRY_DELAYS_MS = [
  30 * SECOND,
  2 * MINUTE,
  10 * MINUTE,
  30 * MINUTE,
  HOUR,
  2 * HOUR,
  4 * HOUR,
  8 * HOUR,
  8 * HOUR,
] as const;

export const MAX_ATTEMPTS = RETRY_DELAYS_MS.length + 1;

/** Each wait is stretched or shrunk by up to 20 % so a receiver that was down is not hit by a herd. */
const JITTER = 0.2;

/** A webhook failing continuously for this long is disabled at its next final failure. */
export const AUTO_DISABLE_AFTER_MS = 24 * HOUR;

const MAX_RETRY_AFTER_MS = 8 * HOUR;

export type AttemptVerdict = 'succeeded' | 'retry' | 'failed';

/**
 * 2xx succeeds. 5xx, 429, 408, 3xx (redirects are never followed) and network errors are
 * retried; other 4xx, and addresses the SSRF guard refuses, fail for good.
 */
export function verdictOf(outcome: PostOutcome): AttemptVerdict {
  const code = outcome.statusCode;
  if (code === null) return outcome.refused ? 'failed' : 'retry';
  if (code >= 200 && code < 300) return 'succeeded';
  if (code >= 400 && code < 500 && code !== 408 && code !== 429) return 'failed';
  return 'retry';
}

/** Seconds or an HTTP date, as a delay from `now`; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: Date): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * SECOND;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}

/**
 * When to try again after the `attemptsMade`-th attempt failed, or null when the schedule is
 * used up. A 429's Retry-After pushes the retry later (up to 8 h), never earlier.
 */
export function nextAttemptAt(
  attemptsMade: number,
  now: Date,
  retryAfter?: string | null,
  random: () => number = Math.random,
): Date | null {
  const base = RETRY_DELAYS_MS[attemptsMade - 1];
  if (base === undefined) return null;
  let delay = base * (1 - JITTER + 2 * JITTER * random());
  const asked = parseRetryAfter(retryAfter ?? null, now);
  if (asked !== undefined) delay = Math.max(delay, Math.min(asked, MAX_RETRY_AFTER_MS));
  return new Date(now.getTime() + Math.round(delay));
}
