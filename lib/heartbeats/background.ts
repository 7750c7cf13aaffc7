import type { Database } from '@/db';
import { config } from '@/lib/config';
import { rerouteStranded } from '@/lib/messages/reroute';
import { resumePausedPhones } from '@/lib/phones/pause';
import { startPeriodic } from '@/lib/runtime/periodic';
import { sweepOfflinePhones } from './sweep';

export type FleetWorkOptions = {
  intervalMs?: number;
  /** The sweep to run (tests replace it to prove the loop outlives a failure). */
  sweep?: (db: Database) => Promise<number>;
};

/**
 * The offline sweep (HEARTBEAT_SWEEP_INTERVAL_S): once at start, for phones that went silent
 * while the server was down, then every interval. Each sweep then announces the phones whose pause
 * ended (`phone.resumed`) and moves the queued group messages of phones that are not online, or
 * paused, to the online phones of their group.
 */
export async function startFleetWork(options: FleetWorkOptions = {}): Promise<() => Promise<void>> {
  return startPeriodic({
    name: 'offline sweep',
    intervalMs: options.intervalMs ?? config.heartbeatSweepIntervalSeconds * 1000,
    run: options.sweep ?? fleetSweep,
    runAtStart: true,
  });
}

async function fleetSweep(db: Database): Promise<number> {
  const offline = await sweepOfflinePhones(db);
  await resumePausedPhones(db);
  await rerouteStranded(db);
  return offline;
}
