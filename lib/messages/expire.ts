import { and, asc, eq, inArray, lte, type SQL } from 'drizzle-orm';
import { type Executor, withQueryOrigin } from '@/db';
import { accountByAccountWhenDistributed, accountsWhere } from '@/db/distributed';
import { messages } from '@/db/schema';
import { withTransaction } from '@/lib/transactions';
import { afterTransition, idIn, sourcesOf } from './state-machine';

const BATCH = 200;

/**
 * Moves every queued or dispatched message past its expires_at to `expired` (refund and event
 * included), in batches. SKIP LOCKED lets several instances sweep at once; the state guard makes
 * a second sweep find nothing to do, so a message is refunded once.
 */
export async function expireMessages(db: Executor, now = new Date()): Promise<number> {
  return withQueryOrigin('task:message expiry sweep', async () => {
    const overdue = and(inArray(messages.status, sourcesOf('expired')), lte(messages.expiresAt, now));
    return accountByAccountWhenDistributed(
      db,
      () => accountsWhere(db, messages.accountId, overdue),
      (accountId) => expireBatches(db, accountId ? and(eq(messages.accountId, accountId), overdue) : overdue, now),
    );
  });
}

/** Expires the messages `overdue` picks, a batch at a time, and answers how many. */
async function expireBatches(db: Executor, overdue: SQL | undefined, now: Date): Promise<number> {
  let total = 0;
  for (;;) {
    const expired = await withTransaction(db, async (tx) => {
      const picked = tx
        .select({ id: messages.id })
        .from(messages)
        .where(overdue)
        .orderBy(asc(messages.expiresAt))
        .limit(BATCH)
        .for('update', { skipLocked: true });
      const rows = await tx
        .update(messages)
        .set({ status: 'expired', updatedAt: now, error: 'expired before the phone sent it' })
        .where(and(idIn(picked), overdue))
        .returning();
      await afterTransition(tx, rows, { at: now });
      return rows.length;
    });
    total += expired;
    if (expired < BATCH) return total;
  }
}
