import { rollUpDailyCounts } from '@/lib/messages/daily-counts';
import { startPeriodic } from '@/lib/runtime/periodic';

const SWEEP_INTERVAL_MS = 5 * 60_000;

/**
 * The statistics' rollup sweep (lib/messages/daily-counts.ts), at start and then every five
 * minutes: a day that leaves the live days, or whose rollup a change marked stale, is counted live
 * by the statistics until this sweep counts it, so the interval costs reads, never correctness.
 */
export async function startStatsWork(): Promise<() => Promise<void>> {
  return startPeriodic({
    name: 'statistics rollup',
    intervalMs: SWEEP_INTERVAL_MS,
    runAtStart: true,
    run: (db) => rollUpDailyCounts(db),
  });
}
