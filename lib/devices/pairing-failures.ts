import { and, eq, gte, lt, sql } from 'drizzle-orm';
import type { Transaction } from '@/db';
import { rateLimitHits } from '@/db/schema';
import { config } from '@/lib/config';
import { rateLimited } from '@/lib/errors';
import { log } from '@/lib/log';
import { lockBuckets, windowState } from '@/lib/rate-limit/consume';

/**
 * Wrong pairing codes tried anywhere on this instance (every process sharing the database), kept
 * as rows of one rate-limit bucket. They bound guessing however many addresses a guesser has:
 * - past `PAIRING_FAILURES_PER_MINUTE` in a rolling minute every sign-in by code answers 429;
 * - a live code dies once `PAIRING_CODE_MAX_FAILURES` wrong codes were tried since it was issued,
 *   so no code faces more than that many guesses (50 of 10^8 by default).
 */
const FAILURE_BUCKET = 'pairing-failed';
const FAILURE_WINDOW_SECONDS = 60;

/**
 * Takes the instance's pairing lock (held to the end of the transaction, so attempts are counted
 * one after another on every instance) and refuses the attempt while the minute's cap is full.
 */
export async function guardPairingAttempt(tx: Transaction): Promise<void> {
  await lockBuckets(tx, [FAILURE_BUCKET]);
  const cap = config.pairingFailuresPerMinute;
  if (cap === 0) return;
  const state = await windowState(tx, FAILURE_BUCKET, FAILURE_WINDOW_SECONDS);
  if (state.hits >= cap) {
    throw rateLimited(
      state.retryAfter ?? FAILURE_WINDOW_SECONDS,
      `Too many wrong pairing codes were tried on this server: at most ${cap} a minute. Try again in a minute.`,
    );
  }
}

/**
 * Counts one wrong code, under the lock guardPairingAttempt took; the failure that fills the
 * minute's cap is logged as a warning (once, not for every refusal after it).
 */
export async function recordPairingFailure(
  tx: Transaction,
  context: { clientIp: string; keepSeconds: number },
): Promise<void> {
  await tx.insert(rateLimitHits).values({ bucket: FAILURE_BUCKET });
  await tx
    .delete(rateLimitHits)
    .where(
      and(
        eq(rateLimitHits.bucket, FAILURE_BUCKET),
        lt(
          rateLimitHits.createdAt,
          sql`now() - make_interval(secs => ${Math.max(context.keepSeconds, FAILURE_WINDOW_SECONDS)})`,
        ),
      ),
    );
  const cap = config.pairingFailuresPerMinute;
  if (cap === 0) return;
  const { hits } = await windowState(tx, FAILURE_BUCKET, FAILURE_WINDOW_SECONDS);
  if (hits === cap) {
    log.warn(
      { cap, clientIp: context.clientIp },
      'wrong pairing codes reached PAIRING_FAILURES_PER_MINUTE: sign-ins by code answer 429 until the minute passes',
    );
  }
}

/** Whether so many wrong codes were tried since a code was issued that it must not work any more. */
export async function voidedByFailures(tx: Transaction, issuedAt: Date): Promise<boolean> {
  const [row] = await tx
    .select({ failures: sql<number>`count(*)::int` })
    .from(rateLimitHits)
    .where(and(eq(rateLimitHits.bucket, FAILURE_BUCKET), gte(rateLimitHits.createdAt, issuedAt)));
  return (row?.failures ?? 0) >= config.pairingCodeMaxFailures;
}
