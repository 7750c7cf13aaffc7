import { LRUCache } from 'lru-cache';
import { config } from '@/lib/config';
import { rateLimited } from '@/lib/errors';

type Bucket = { tokens: number; updatedAt: number };

export const MAX_BUCKETS = 10_000;
// Least recently used buckets go first: a flood of new keys cannot wipe a busy key's bucket.
const buckets = new LRUCache<string, Bucket>({ max: MAX_BUCKETS });

/**
 * A token bucket per key: `API_KEY_RATE_LIMIT` requests a second, with bursts of as many. Kept in
 * the instance's memory (the hot path stays free of database work), so behind N instances a key
 * gets at most N times the limit. 0 turns it off.
 */
export function takeKeyToken(keyId: string, now = Date.now()): void {
  const perSecond = config.apiKeyRateLimit;
  if (perSecond === 0) return;
  let bucket = buckets.get(keyId);
  if (!bucket) {
    bucket = { tokens: perSecond, updatedAt: now };
    buckets.set(keyId, bucket);
  }
  bucket.tokens = Math.min(perSecond, bucket.tokens + ((now - bucket.updatedAt) / 1000) * perSecond);
  bucket.updatedAt = now;
  if (bucket.tokens < 1) {
    throw rateLimited(
      (1 - bucket.tokens) / perSecond,
      `Too many requests with this key: at most ${perSecond} a second.`,
    );
  }
  bucket.tokens -= 1;
}

export function resetKeyBuckets(): void {
  buckets.clear();
}
