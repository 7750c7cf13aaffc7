import { getDatabase } from '@/db';
import { startPeriodic } from '@/lib/runtime/periodic';
import { startWakeLoop } from '@/lib/runtime/wake-loop';
import { EMAIL_BATCH_SIZE, EMAIL_OUTBOX_CHANNEL, pruneEmailOutbox, runEmailBatch } from './outbox';

/** Polls this often (retries come due without a NOTIFY); a committed enqueue wakes it at once. */
const POLL_MS = 1000;

/**
 * The automation email worker: claims due emails of the outbox and sends them, a batch at a time,
 * and prunes old ones hourly.
 * It claims nothing once the process begins to shut down; stopping waits for the batch in flight
 * (bounded by the SMTP timeouts).
 */
export async function startEmailWork(): Promise<() => Promise<void>> {
  const { db } = await getDatabase();
  const loop = await startWakeLoop({
    name: 'email worker',
    channel: EMAIL_OUTBOX_CHANNEL,
    pollMs: POLL_MS,
    // A full batch suggests more are due.
    round: async () => (await runEmailBatch(db, EMAIL_BATCH_SIZE)).length === EMAIL_BATCH_SIZE,
  });
  const stopPruning = startPeriodic({ name: 'email outbox pruning', intervalMs: 3600_000, run: pruneEmailOutbox });

  return async () => {
    await Promise.all([loop.stop(), stopPruning()]);
  };
}
