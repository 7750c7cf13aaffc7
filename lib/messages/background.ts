import { getDb } from '@/db';
import { log } from '@/lib/log';
import { expireMessages } from './expire';

/** Seconds between expiry sweeps (`MESSAGE_EXPIRY_SWEEP_S`, default 30). */
function sweepIntervalMs(): number {
  const seconds = Number(process.env.MESSAGE_EXPIRY_SWEEP_S ?? 30);
  return (Number.isFinite(seconds) && seconds > 0 ? seconds : 30) * 1000;
}

/** Starts this area's background work (the expiry sweep); returns its stop function. */
export async function startMessagingWork(): Promise<() => Promise<void>> {
  const interval = sweepIntervalMs();
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();

  const tick = () => {
    running = (async () => {
      try {
        const expired = await expireMessages(await getDb());
        if (expired > 0) log.info({ expired }, 'messages expired');
      } catch (error) {
        log.error({ err: error }, 'message expiry sweep failed');
      }
      if (!stopped) {
        timer = setTimeout(tick, interval);
        timer.unref();
      }
    })();
  };
  timer = setTimeout(tick, interval);
  timer.unref();

  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}
