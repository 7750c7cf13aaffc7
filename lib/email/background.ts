import { getDatabase } from '@/db';
import { log } from '@/lib/log';
import { shuttingDown } from '@/lib/server/host';
import { listenTo } from '@/lib/server/listen';
import { startPeriodic } from '@/lib/server/periodic';
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
  let stopped = false;
  let running: Promise<void> | undefined;
  let wakeAgain = false;
  let timer: NodeJS.Timeout | undefined;

  const schedule = () => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(wake, POLL_MS);
    timer.unref();
  };

  const round = async () => {
    do {
      wakeAgain = false;
      // A full batch suggests more are due.
      if ((await runEmailBatch(db, EMAIL_BATCH_SIZE)).length === EMAIL_BATCH_SIZE) wakeAgain = true;
    } while (wakeAgain && !stopped && !shuttingDown());
  };

  function wake(): void {
    if (stopped || shuttingDown()) return;
    if (running) {
      wakeAgain = true;
      return;
    }
    running = round()
      .catch((error) => log.error({ err: error }, 'email worker could not claim emails'))
      .finally(() => {
        running = undefined;
        schedule();
      });
  }

  const unlisten = await listenTo(EMAIL_OUTBOX_CHANNEL, wake);
  wake();
  const stopPruning = startPeriodic({ name: 'email outbox pruning', intervalMs: 3600_000, run: pruneEmailOutbox });

  return async () => {
    stopped = true;
    clearTimeout(timer);
    await unlisten?.().catch(() => {});
    await Promise.all([running, stopPruning()]);
  };
}
