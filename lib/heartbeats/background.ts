import { type Database, getDb } from '@/db';
import { log } from '@/lib/log';
import { sweepOfflinePhones } from './sweep';

const DEFAULT_SWEEP_INTERVAL_S = 30;

/** How often the offline sweep runs: HEARTBEAT_SWEEP_INTERVAL_S (default 30, at least 1). */
export function sweepIntervalMs(): number {
  const raw = process.env.HEARTBEAT_SWEEP_INTERVAL_S;
  const seconds = raw ? Number(raw) : DEFAULT_SWEEP_INTERVAL_S;
  if (!Number.isFinite(seconds) || seconds <= 0) {
    throw new Error(`HEARTBEAT_SWEEP_INTERVAL_S must be a positive number of seconds, got "${raw}"`);
  }
  return Math.max(1, seconds) * 1000;
}

export type FleetWorkOptions = {
  intervalMs?: number;
  /** The sweep to run (tests replace it to prove the loop outlives a failure). */
  sweep?: (db: Database) => Promise<number>;
};

/**
 * Starts this area's background work, the offline sweep: once at start (phones that went silent
 * while the server was down), then every interval. A failed sweep is logged and the loop goes on.
 * Returns its stop function, which waits for a sweep in progress.
 */
export async function startFleetWork(options: FleetWorkOptions = {}): Promise<() => Promise<void>> {
  const intervalMs = options.intervalMs ?? sweepIntervalMs();
  const sweep = options.sweep ?? ((db: Database) => sweepOfflinePhones(db));
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  const runOnce = async () => {
    try {
      const offline = await sweep(await getDb());
      if (offline > 0) log.info({ offline }, 'phones marked offline after missing heartbeats');
    } catch (error) {
      log.error({ err: error }, 'offline sweep failed');
    }
  };

  const tick = () => {
    running = runOnce().finally(() => {
      running = undefined;
      if (stopped) return;
      timer = setTimeout(tick, intervalMs);
      timer.unref();
    });
  };

  tick();
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}
