import { and, eq, inArray, lt } from 'drizzle-orm';
import { type Database, withQueryOrigin } from '@/db';
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
    let total = 0;
    for (;;) {
      const swept = await db.transaction(async (tx) => {
        const silent = tx
          .select({ id: phones.id })
          .from(phones)
          .where(and(eq(phones.status, 'online'), lt(phones.lastHeartbeatAt, cutoff)))
          .limit(BATCH_SIZE)
          .for('update', { skipLocked: true });
        const offline = await tx
          .update(phones)
          .set({ status: 'offline' })
          .where(and(inArray(phones.id, silent), eq(phones.status, 'online'), lt(phones.lastHeartbeatAt, cutoff)))
          .returning();
        for (const phone of offline) await emitPhoneStatusChange(tx, phone);
        return offline.length;
      });
      total += swept;
      if (swept < BATCH_SIZE) return total;
    }
  });
}
