import { and, eq, inArray, lt, type SQL } from 'drizzle-orm';
import { type Database, withQueryOrigin } from '@/db';
import { accountByAccountWhenDistributed, accountsWhere } from '@/db/distributed';
import { phones } from '@/db/schema';
import { config } from '@/lib/config';
import { emitPhoneStatusChange } from './phone-status';

const BATCH_SIZE = 500;

/**
 * Marks offline the online phones silent for longer than HEARTBEAT_TIMEOUT_S and emits one
 * `phone.offline` each, in batches. Safe with several instances sweeping at once: rows another
 * sweep (or a heartbeat) holds are skipped, and the UPDATE re-checks `status = 'online'`, so a
 * transition is reported exactly once. Returns how many phones went offline.
 */
export async function sweepOfflinePhones(db: Database, now: Date = new Date()): Promise<number> {
  return withQueryOrigin('task:offline sweep', async () => {
    const cutoff = new Date(now.getTime() - config.heartbeatTimeoutSeconds * 1000);
    const silent = and(eq(phones.status, 'online'), lt(phones.lastHeartbeatAt, cutoff));
    return accountByAccountWhenDistributed(
      db,
      () => accountsWhere(db, phones.accountId, silent),
      (accountId) => sweepBatches(db, accountId ? and(eq(phones.accountId, accountId), silent) : silent),
    );
  });
}

/** Marks offline the phones `silent` picks, a batch at a time, and answers how many. */
async function sweepBatches(db: Database, silent: SQL | undefined): Promise<number> {
  let total = 0;
  for (;;) {
    const swept = await db.transaction(async (tx) => {
      const batch = tx
        .select({ id: phones.id })
        .from(phones)
        .where(silent)
        .limit(BATCH_SIZE)
        .for('update', { skipLocked: true });
      const offline = await tx
        .update(phones)
        .set({ status: 'offline' })
        .where(and(inArray(phones.id, batch), silent))
        .returning();
      for (const phone of offline) await emitPhoneStatusChange(tx, phone);
      return offline.length;
    });
    total += swept;
    if (swept < BATCH_SIZE) return total;
  }
}
