import { withQueryOrigin } from '@/db';
import { log } from '@/lib/log';
import { taskRan } from '@/lib/metrics/record';
import { shuttingDown } from './lifecycle';
import { listenTo } from './listen';

export type WakeLoop = {
  /** Runs a round now, or right after the one running. */
  wake: () => void;
  /** Stops waking; resolves once the round in flight has ended. */
  stop: () => Promise<void>;
};

/**
 * A background worker's rhythm: `round` runs when a NOTIFY on `channel` says committed work is
 * waiting, when `wake()` is called, and every `pollMs` besides (retries fall due without a
 * notification; a notification lost while the LISTEN connection was down is made up). Rounds never
 * overlap: a wake during one runs another right after it, and so does a round that answers true
 * (a full batch: more may be due). Nothing starts once the process begins to shut down.
 */
export async function startWakeLoop(options: {
  name: string;
  channel: string;
  pollMs: number;
  round: () => Promise<boolean>;
}): Promise<WakeLoop> {
  let stopped = false;
  let running: Promise<void> | undefined;
  let wakeAgain = false;
  let timer: NodeJS.Timeout | undefined;

  const schedule = () => {
    if (stopped) return;
    clearTimeout(timer);
    timer = setTimeout(wake, options.pollMs);
    timer.unref();
  };

  const round = async (): Promise<boolean> => {
    const started = performance.now();
    try {
      const more = await withQueryOrigin(`task:${options.name}`, options.round);
      taskRan(options.name, (performance.now() - started) / 1000, true);
      return more;
    } catch (error) {
      taskRan(options.name, (performance.now() - started) / 1000, false);
      throw error;
    }
  };

  const rounds = async () => {
    do {
      wakeAgain = false;
      if (await round()) wakeAgain = true;
    } while (wakeAgain && !stopped && !shuttingDown());
  };

  function wake(): void {
    if (stopped || shuttingDown()) return;
    if (running) {
      wakeAgain = true;
      return;
    }
    running = rounds()
      .catch((error) => log.error({ err: error }, `${options.name} failed a round`))
      .finally(() => {
        running = undefined;
        schedule();
      });
  }

  const unlisten = await listenTo(options.channel, wake);
  wake();
  return {
    wake,
    stop: async () => {
      stopped = true;
      clearTimeout(timer);
      await unlisten?.().catch(() => {});
      await running;
    },
  };
}
