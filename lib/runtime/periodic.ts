import { type Database, getDb, withQueryOrigin } from '@/db';
import { log } from '@/lib/log';
import { taskRan } from '@/lib/metrics/record';

export type PeriodicTask = {
  /** Names the task in logs. */
  name: string;
  intervalMs: number;
  /** One pass; answers how many rows it changed (logged when not zero). */
  run: (db: Database) => Promise<number>;
  /** Run once at start (catching up on what happened while the server was down), or first wait. */
  runAtStart?: boolean;
};

/**
 * Runs a background pass every interval, one at a time. A failed pass is logged and the loop goes
 * on; the timers never keep the process alive. Returns the stop function, which waits for a pass
 * in progress.
 */
export function startPeriodic(task: PeriodicTask): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  const runOnce = async () => {
    const started = performance.now();
    try {
      const db = await getDb();
      const changed = await withQueryOrigin(`task:${task.name}`, () => task.run(db));
      taskRan(task.name, (performance.now() - started) / 1000, true);
      if (changed > 0) log.info({ task: task.name, changed }, `${task.name}: ${changed} row(s)`);
    } catch (error) {
      taskRan(task.name, (performance.now() - started) / 1000, false);
      log.error({ err: error, task: task.name }, `${task.name} failed`);
    }
  };
  const schedule = () => {
    if (stopped) return;
    timer = setTimeout(tick, task.intervalMs);
    timer.unref();
  };
  const tick = () => {
    running = runOnce().finally(() => {
      running = undefined;
      schedule();
    });
  };

  if (task.runAtStart) tick();
  else schedule();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}
