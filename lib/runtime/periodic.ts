import { type Database, getDb, withQueryOrigin } from '@/db';
import { log } from '@/lib/log';
import { taskRan } from '@/lib/metrics/record';

/** What a pass did: rows changed, and whether work is left for the next pass. */
export type PassResult = { changed: number; workLeft: boolean };

export type PeriodicTask = {
  /** Names the task in logs. */
  name: string;
  intervalMs: number;
  /**
   * One pass; answers how many rows it changed (logged when not zero), or that and whether it left
   * work undone (its time budget spent), in which case the next pass starts after `againMs`.
   */
  run: (db: Database) => Promise<number | PassResult>;
  /** The wait before the next pass after one that left work undone (default: the interval). */
  againMs?: number;
  /** Run once at start (catching up on what happened while the server was down), or first wait. */
  runAtStart?: boolean;
};

/**
 * Runs a background pass every interval, one at a time (sooner, after `againMs`, when a pass left work
 * undone). A failed pass is logged and the loop goes on; the timers never keep the process alive.
 * Returns the stop function, which waits for a pass in progress.
 */
export function startPeriodic(task: PeriodicTask): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  /** Runs one pass; answers whether it left work undone. */
  const runOnce = async (): Promise<boolean> => {
    const started = performance.now();
    try {
      const db = await getDb();
      const result = await withQueryOrigin(`task:${task.name}`, () => task.run(db));
      const { changed, workLeft } = typeof result === 'number' ? { changed: result, workLeft: false } : result;
      taskRan(task.name, (performance.now() - started) / 1000, true);
      if (changed > 0) log.info({ task: task.name, changed }, `${task.name}: ${changed} row(s)`);
      return workLeft;
    } catch (error) {
      taskRan(task.name, (performance.now() - started) / 1000, false);
      log.error({ err: error, task: task.name }, `${task.name} failed`);
      return false;
    }
  };
  const schedule = (workLeft: boolean) => {
    if (stopped) return;
    timer = setTimeout(tick, workLeft ? (task.againMs ?? task.intervalMs) : task.intervalMs);
    timer.unref();
  };
  // runOnce never rejects: a failed pass is logged there.
  const tick = () => {
    running = runOnce().then((workLeft) => {
      running = undefined;
      schedule(workLeft);
    });
  };

  if (task.runAtStart) tick();
  else schedule(false);
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}
