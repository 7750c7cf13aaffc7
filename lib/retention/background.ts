import type { Database } from '@/db';
import { config } from '@/lib/config';
import { log } from '@/lib/log';
import { retentionSwept } from '@/lib/metrics/record';
import { startPeriodic } from '@/lib/runtime/periodic';
import { describeReport, RETENTION_KINDS, type RetentionReport, sweepRetentionPass } from './sweep';

/** The wait between two passes while a backlog is purged: each pass paces itself by its duty. */
const CATCH_UP_PAUSE_MS = 1_000;

const totals = Object.fromEntries(RETENTION_KINDS.map((kind) => [kind, 0])) as RetentionReport;

/** Rows removed per kind by this process's sweeps since it started (for a metric). */
export function retentionTotals(): RetentionReport {
  return { ...totals };
}

/**
 * One sweep, added to the totals and logged as one line with the rows per kind; answers whether it
 * stopped at its time budget with work left.
 */
async function runRetentionSweep(db: Database): Promise<boolean> {
  const { report, workLeft } = await sweepRetentionPass(db);
  for (const kind of RETENTION_KINDS) totals[kind] += report[kind];
  retentionSwept(report);
  if (RETENTION_KINDS.some((kind) => report[kind] > 0)) {
    log.info({ task: 'retention sweep', removed: report }, `retention sweep: ${describeReport(report)}`);
  }
  return workLeft;
}

/**
 * The retention sweep (RETENTION_SWEEP_INTERVAL_S), once at start and then every interval; a pass
 * that spent its time budget with rows left is followed by the next after CATCH_UP_PAUSE_MS, so
 * that a backlog is purged at the sweep's duty (RETENTION_SWEEP_DUTY_PERCENT) rather than one budget
 * an interval.
 */
export async function startRetentionWork(): Promise<() => Promise<void>> {
  return startPeriodic({
    name: 'retention sweep',
    intervalMs: config.retentionSweepIntervalSeconds * 1000,
    againMs: CATCH_UP_PAUSE_MS,
    runAtStart: true,
    // Logs its own line, rows per kind; the loop's generic line would repeat it.
    run: async (db) => ({ changed: 0, workLeft: await runRetentionSweep(db) }),
  });
}
