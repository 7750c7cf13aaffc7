import { and, eq, isNotNull, isNull, lte, type SQL } from 'drizzle-orm';
import { type Database, type Executor, withQueryOrigin } from '@/db';
import { accountByAccountWhenDistributed, accountsWhere } from '@/db/distributed';
import { phones } from '@/db/schema';
import { config } from '@/lib/config';
import { emitEvent } from '@/lib/events/emit';

/**
 * Android's SMS limiter: a phone that sends too much in too little time has its sends failed with
 * RESULT_ERROR_LIMIT_EXCEEDED until it calms down. Such a phone is paused: handed nothing (the claim)
 * and chosen for nothing (a group's phone choice) until `paused_until`, LIMIT_PAUSE_SECONDS after the
 * report, or twice the last pause when the last one ended less than an hour before (at most 4 hours).
 * `phone.paused` is emitted once per pause; the resume sweep (`resumePausedPhones`, run with the
 * offline sweep) emits `phone.resumed` once when it is over. Claims and choices compare `paused_until`
 * with the time, so a pause ends on time whether or not the sweep has run.
 */
export const MAX_PAUSE_SECONDS = 4 * 3600;
/** A limit report within this long after the last pause ended doubles the pause. */
const REPEAT_WITHIN_MS = 3600_000;

/** Locks the phone's row for a pause (phone before messages, the lock order of lib/phones/delete.ts). */
export async function lockForPause(tx: Executor, phone: { accountId: string; id: string }) {
  const [row] = await tx
    .select({
      pausedUntil: phones.pausedUntil,
      pauseSeconds: phones.pauseSeconds,
      pauseResumedAt: phones.pauseResumedAt,
    })
    .from(phones)
    .where(and(eq(phones.accountId, phone.accountId), eq(phones.id, phone.id)))
    .for('no key update');
  return row;
}

/**
 * Pauses the phone after a limit report, its row locked by `lockForPause` in this transaction.
 * A phone already paused stays as it is (one report of a burst starts the pause, the others add
 * nothing). Answers when the pause ends.
 */
export async function pausePhone(
  tx: Executor,
  phone: { accountId: string; id: string; phone: string },
  now: Date = new Date(),
): Promise<Date> {
  const current = await lockForPause(tx, phone);
  if (current?.pausedUntil && current.pausedUntil > now) return current.pausedUntil;
  // The last pause is over but the sweep has not said so yet: it is said now, before the next begins.
  if (current?.pausedUntil && current.pauseResumedAt === null) {
    await emitResumed(tx, { ...phone, pausedUntil: current.pausedUntil, pauseSeconds: current.pauseSeconds });
  }
  const repeat = current?.pausedUntil && current.pausedUntil.getTime() > now.getTime() - REPEAT_WITHIN_MS;
  const seconds = Math.min(
    MAX_PAUSE_SECONDS,
    repeat && current?.pauseSeconds ? current.pauseSeconds * 2 : config.limitPauseSeconds,
  );
  const until = new Date(now.getTime() + seconds * 1000);
  await tx
    .update(phones)
    .set({ pausedUntil: until, pauseSeconds: seconds, pauseResumedAt: null })
    .where(and(eq(phones.accountId, phone.accountId), eq(phones.id, phone.id)));
  await emitEvent(tx, {
    accountId: phone.accountId,
    type: 'phone.paused',
    phone: phone.phone,
    data: { phone_id: phone.id, phone: phone.phone, until: until.toISOString(), pause_seconds: seconds },
  });
  return until;
}

const BATCH_SIZE = 500;

/**
 * Emits `phone.resumed` once for each phone whose pause is over, in batches (phones_pause_idx).
 * Safe with several instances sweeping at once: rows another sweep holds are skipped, and the
 * update re-checks `pause_resumed_at is null`. Returns how many phones resumed.
 */
export async function resumePausedPhones(db: Database, now: Date = new Date()): Promise<number> {
  return withQueryOrigin('task:pause sweep', async () => {
    const over = and(isNotNull(phones.pausedUntil), isNull(phones.pauseResumedAt), lte(phones.pausedUntil, now));
    return accountByAccountWhenDistributed(
      db,
      () => accountsWhere(db, phones.accountId, over),
      (accountId) => resumeBatches(db, accountId ? and(eq(phones.accountId, accountId), over) : over, now),
    );
  });
}

/** Resumes the phones `over` picks, a batch at a time, and answers how many. */
async function resumeBatches(db: Database, over: SQL | undefined, now: Date): Promise<number> {
  let total = 0;
  for (;;) {
    const resumed = await db.transaction(async (tx) => {
      const due = await tx
        .select({ id: phones.id, accountId: phones.accountId })
        .from(phones)
        .where(over)
        .limit(BATCH_SIZE)
        .for('update', { skipLocked: true });
      let count = 0;
      for (const row of due) {
        const [phone] = await tx
          .update(phones)
          .set({ pauseResumedAt: now })
          .where(and(eq(phones.accountId, row.accountId), eq(phones.id, row.id), over))
          .returning();
        if (!phone?.pausedUntil) continue;
        await emitResumed(tx, { ...phone, pausedUntil: phone.pausedUntil });
        count += 1;
      }
      return { count, full: due.length === BATCH_SIZE };
    });
    total += resumed.count;
    if (!resumed.full) return total;
  }
}

function emitResumed(
  tx: Executor,
  phone: { accountId: string; id: string; phone: string; pausedUntil: Date; pauseSeconds: number | null },
): Promise<string> {
  return emitEvent(tx, {
    accountId: phone.accountId,
    type: 'phone.resumed',
    phone: phone.phone,
    data: {
      phone_id: phone.id,
      phone: phone.phone,
      until: phone.pausedUntil.toISOString(),
      pause_seconds: phone.pauseSeconds ?? 0,
    },
  });
}
