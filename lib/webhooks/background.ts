import { getDatabase } from '@/db';
import { WEBHOOK_DELIVERIES_CHANNEL } from '@/lib/events/emit';
import { log } from '@/lib/log';
import { shuttingDown } from '@/lib/server/host';
import { currentNetworkPolicy } from './validate';
import { claimDueDeliveries, DEFAULT_BATCH_SIZE, deliverClaimed } from './worker';

/** Polls this often; a NOTIFY from a committed event wakes it at once. */
const POLL_MS = 1000;
/** Posts in flight per process at most (each waits up to 10 s on its receiver). */
const MAX_IN_FLIGHT = 50;

type Unlisten = () => Promise<void>;

async function listen(onNotify: () => void): Promise<Unlisten | undefined> {
  const { driver } = await getDatabase();
  try {
    if (driver.kind === 'postgres') {
      const subscription = await driver.client.listen(WEBHOOK_DELIVERIES_CHANNEL, onNotify);
      return () => subscription.unlisten();
    }
    return await driver.client.listen(WEBHOOK_DELIVERIES_CHANNEL, onNotify);
  } catch (error) {
    log.warn({ err: error }, 'webhook worker cannot LISTEN; polling only');
    return undefined;
  }
}

/**
 * The webhook worker: claims due deliveries and posts them, with up to 50 posts in flight and
 * without waiting for a slow receiver before claiming more. It claims nothing once the process
 * begins to shut down; stopping finishes the posts in flight (10 s each at most).
 */
export async function startWebhookWork(): Promise<() => Promise<void>> {
  const { db } = await getDatabase();
  const inFlight = new Set<Promise<void>>();
  let stopped = false;
  let claiming: Promise<void> | undefined;
  let wakeAgain = false;
  let timer: NodeJS.Timeout | undefined;

  const schedule = () => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(wake, POLL_MS);
    timer.unref();
  };

  const claimRound = async () => {
    do {
      wakeAgain = false;
      const room = Math.min(DEFAULT_BATCH_SIZE, MAX_IN_FLIGHT - inFlight.size);
      if (room <= 0 || stopped) return;
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
          if (wasFull) wake();
        });
      }
      // A full batch suggests more are due.
      if (claims.length === room) wakeAgain = true;
    } while (wakeAgain && !stopped);
  };

  function wake(): void {
    // Once shutdown begins nothing new is claimed: the posts in flight finish, the rest wait for the next start.
    if (stopped || shuttingDown()) return;
    if (claiming) {
      wakeAgain = true;
      return;
    }
    claiming = claimRound()
      .catch((error) => log.error({ err: error }, 'webhook worker could not claim deliveries'))
      .finally(() => {
        claiming = undefined;
        schedule();
      });
  }

  const unlisten = await listen(wake);
  wake();

  return async () => {
    stopped = true;
    clearTimeout(timer);
    await unlisten?.().catch(() => {});
    await claiming;
    await Promise.allSettled([...inFlight]);
  };
}
