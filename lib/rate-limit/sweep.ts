import { lt, sql } from 'drizzle-orm';
import { type Executor, withQueryOrigin } from '@/db';
import { rateLimitHits } from '@/db/schema';
import { config } from '@/lib/config';
import { startPeriodic } from '@/lib/runtime/periodic';

const HOUR_S = 3600;

/**
 * Deletes hits that have left every window (the longest is the verification window or the hourly
 * per-IP window). Buckets also sweep themselves when hit again; this catches the numbers and IPs
 * that never come back. Answers how many rows went.
 */
export async function sweepRateLimitHits(executor: Executor): Promise<number> {
  return withQueryOrigin('task:rate-limit sweep', async () => {
    const longestWindow = Math.max(config.verificationRateWindowSeconds, HOUR_S);
    const deleted = await executor
      .delete(rateLimitHits)
      .where(lt(rateLimitHits.createdAt, sql`now() - make_interval(secs => ${longestWindow})`))
      .returning({ id: rateLimitHits.id });
    return deleted.length;
  });
}

/** Sweeps expired rate-limit hits every ten minutes. */
export async function startRateLimitHousekeeping(): Promise<() => Promise<void>> {
  return startPeriodic({ name: 'rate-limit sweep', intervalMs: 10 * 60_000, run: sweepRateLimitHits });
}
