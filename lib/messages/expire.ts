import { and, asc, inArray, lte } from 'drizzle-orm';
import { type Executor, withQueryOrigin } from '@/db';
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
    let total = 0;
    for (;;) {
      const expired = await withTransaction(db, async (tx) => {
        const live = inArray(messages.status, sourcesOf('expired'));
        const picked = tx
          .select({ id: messages.id })
          .from(messages)
          .where(and(live, lte(messages.expiresAt, now)))
          .orderBy(asc(messages.expiresAt))
          .limit(BATCH)
          .for('update', { skipLocked: true });
        const rows = await tx
          .update(messages)
          .set({ status: 'expired', updatedAt: now, error: 'expired before the phone sent it' })
          .where(and(idIn(picked), live))
          .returning();
        await afterTransition(tx, rows, { at: now });
        return rows.length;
      });
      total += expired;
      if (expired < BATCH) return total;
    }
  });
}
