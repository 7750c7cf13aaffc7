import type { Database } from '@/db';
import { config } from '@/lib/config';
import { startPeriodic } from '@/lib/server/periodic';
import { sweepOfflinePhones } from './sweep';

export type FleetWorkOptions = {
  intervalMs?: number;
  /** The sweep to run (tests replace it to prove the loop outlives a failure). */
  sweep?: (db: Database) => Promise<number>;
};

/**
 * The offline sweep (HEARTBEAT_SWEEP_INTERVAL_S): once at start, for phones that went silent
 * while the server was down, then every interval.
 */
export async function startFleetWork(options: FleetWorkOptions = {}): Promise<() => Promise<void>> {
  return startPeriodic({
    name: 'offline sweep',
    intervalMs: options.intervalMs ?? config.heartbeatSweepIntervalSeconds * 1000,
    run: options.sweep ?? ((db) => sweepOfflinePhones(db)),
    runAtStart: true,
  });
}
