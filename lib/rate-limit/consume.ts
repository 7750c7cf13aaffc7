import { and, inArray, lt, sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import { rateLimitHits } from '@/db/schema';
import { withTransaction } from '@/lib/db';
import { rateLimited } from '@/lib/errors';

export type RateLimit = {
  /** What is counted, e.g. `verify:+14155550100` or `register-ip:203.0.113.7`. */
  bucket: string;
  /** Hits allowed per rolling window; 0 turns the limit off. */
  limit: number;
  windowSeconds: number;
  /** Said in the 429's detail, e.g. "verification requests for this number". */
  what: string;
};

type WindowState = { hits: number; retry_after: number | null };

/**
 * Counts one hit in every bucket, or throws 429 RATE_LIMITED (with Retry-After: seconds until
 * the oldest hit in the window leaves it) when any bucket is full; a refused request counts in
 * none. Counting happens in the database under a per-bucket advisory lock held to the end of
 * the transaction, so concurrent requests on several instances cannot both take the last slot.
 */
export async function consumeRateLimits(executor: Executor, limits: RateLimit[]): Promise<void> {
  const active = limits.filter((limit) => limit.limit > 0);
  if (active.length === 0) return;
  await withTransaction(executor, async (tx) => {
    // A fixed lock order keeps two requests that share buckets from deadlocking.
    for (const bucket of [...new Set(active.map((limit) => limit.bucket))].sort()) {
      await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${bucket}))`);
    }
    for (const limit of active) {
      const [state] = await queryRows<WindowState>(
        tx,
        sql`select count(*)::int as hits,
              extract(epoch from min(created_at) + make_interval(secs => ${limit.windowSeconds}) - now())::float8
                as retry_after
            from rate_limit_hits
            where bucket = ${limit.bucket}
              and created_at > now() - make_interval(secs => ${limit.windowSeconds})`,
      );
      if (state && state.hits >= limit.limit) {
        throw rateLimited(
          state.retry_after ?? limit.windowSeconds,
          `Too many ${limit.what}: at most ${limit.limit} per ${limit.windowSeconds} s. Try again later.`,
        );
      }
    }
    await tx.insert(rateLimitHits).values(active.map((limit) => ({ bucket: limit.bucket })));
    // Hits that left every window are dead weight: each bucket sweeps its own.
    const longestWindow = Math.max(...active.map((limit) => limit.windowSeconds));
    await tx.delete(rateLimitHits).where(
      and(
        inArray(
          rateLimitHits.bucket,
          active.map((limit) => limit.bucket),
        ),
        lt(rateLimitHits.createdAt, sql`now() - make_interval(secs => ${longestWindow})`),
      ),
    );
  });
}
