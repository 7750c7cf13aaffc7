import { getDatabase } from '@/db';
import { WEBHOOK_DELIVERIES_CHANNEL } from '@/lib/events/emit';
import { log } from '@/lib/log';
import { startWakeLoop } from '@/lib/runtime/wake-loop';
import { currentNetworkPolicy } from './validate';
import { claimDueDeliveries, DEFAULT_BATCH_SIZE, deliverClaimed } from './worker';

/** Polls this often; a NOTIFY from a committed event wakes it at once. */
const POLL_MS = 1000;
/** Posts in flight per process at most (each waits up to 10 s on its receiver). */
const MAX_IN_FLIGHT = 50;

/**
 * The webhook worker: claims due deliveries and posts them, with up to 50 posts in flight and
 * without waiting for a slow receiver before claiming more. It claims nothing once the process
 * begins to shut down; stopping finishes the posts in flight (10 s each at most).
 */
export async function startWebhookWork(): Promise<() => Promise<void>> {
  const { db } = await getDatabase();
  const inFlight = new Set<Promise<void>>();
  let stopped = false;

  const claimRound = async (): Promise<boolean> => {
    const room = Math.min(DEFAULT_BATCH_SIZE, MAX_IN_FLIGHT - inFlight.size);
    if (room <= 0 || stopped) return false;
    const claims = await claimDueDeliveries(db, { limit: room });
    const policy = currentNetworkPolicy();
    for (const claim of claims) {
      const posting = deliverClaimed(db, claim, policy).then(
        () => {},
        (error) => log.error({ err: error, deliveryId: claim.id }, 'webhook delivery could not be recorded'),
      );
      inFlight.add(posting);
      void posting.finally(() => {
        const wasFull = inFlight.size >= MAX_IN_FLIGHT;
        inFlight.delete(posting);
        // Room again: claim what waited for it.
        if (wasFull) loop.wake();
      });
    }
    // A full batch suggests more are due.
    return claims.length === room;
  };

  const loop = await startWakeLoop({
    name: 'webhook worker',
    channel: WEBHOOK_DELIVERIES_CHANNEL,
    pollMs: POLL_MS,
    round: claimRound,
  });

  return async () => {
    stopped = true;
    await loop.stop();
    await Promise.allSettled([...inFlight]);
  };
}
