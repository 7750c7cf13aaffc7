import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { rateLimitHits } from '@/db/schema';
import { sweepRateLimitHits } from '@/lib/rate-limit/sweep';
import { withTestDatabase } from './setup-db';

const { db } = withTestDatabase();

describe('rate-limit housekeeping', () => {
  it('deletes hits that left every window, of buckets that never came back, and keeps live ones', async () => {
    await db()
      .insert(rateLimitHits)
      .values([
        { bucket: 'verify:+14155550100', createdAt: sql`now() - interval '2 hours'` as never },
        { bucket: 'register-ip:203.0.113.7', createdAt: sql`now() - interval '3 hours'` as never },
        { bucket: 'register-ip:203.0.113.7', createdAt: sql`now() - interval '5 minutes'` as never },
      ]);
    expect(await sweepRateLimitHits(db())).toBe(2);
    const left = await db().select({ bucket: rateLimitHits.bucket }).from(rateLimitHits);
    expect(left).toEqual([{ bucket: 'register-ip:203.0.113.7' }]);
    expect(await sweepRateLimitHits(db())).toBe(0);
  });
});
