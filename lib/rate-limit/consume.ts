import { and, inArray, lt, sql } from 'drizzle-orm';
import { type Executor, queryRows, type Transaction } from '@/db';
import { rateLimitHits } from '@/db/schema';
import { rateLimited } from '@/lib/errors';
import { withTransaction } from '@/lib/transactions';

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
 * Takes the buckets' advisory locks, held to the end of the transaction: whoever counts a bucket
 * under its lock sees every hit committed before. A fixed order keeps two requests that share
 * buckets from deadlocking.
 */
export async function lockBuckets(tx: Transaction, buckets: string[]): Promise<void> {
  for (const bucket of [...new Set(buckets)].sort()) {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${bucket}))`);
  }
}

/** Hits of a bucket within the rolling window, and the seconds until the oldest of them leaves it. */
export async function windowState(
  executor: Executor,
  bucket: string,
  windowSeconds: number,
): Promise<{ hits: number; retryAfter: number | null }> {
  const [state] = await queryRows<WindowState>(
    executor,
    sql`select count(*)::int as hits,
          extract(epoch from min(created_at) + make_interval(secs => ${windowSeconds}) - now())::float8
            as retry_after
        from rate_limit_hits
        where bucket = ${bucket}
          and created_at > now() - make_interval(secs => ${windowSeconds})`,
  );
  return { hits: state?.hits ?? 0, retryAfter: state?.retry_after ?? null };
}

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
    await lockBuckets(
      tx,
      active.map((limit) => limit.bucket),
    );
    for (const limit of active) {
      const state = await windowState(tx, limit.bucket, limit.windowSeconds);
      if (state.hits >= limit.limit) {
        throw rateLimited(
          state.retryAfter ?? limit.windowSeconds,
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
