import type { Database } from '@/db';
import { config } from '@/lib/config';
import { log } from '@/lib/log';
import { retentionSwept } from '@/lib/metrics/record';
import { startPeriodic } from '@/lib/runtime/periodic';
import { describeReport, RETENTION_KINDS, type RetentionReport, sweepRetention } from './sweep';

const totals = Object.fromEntries(RETENTION_KINDS.map((kind) => [kind, 0])) as RetentionReport;

/** Rows removed per kind by this process's sweeps since it started (for a metric). */
export function retentionTotals(): RetentionReport {
  return { ...totals };
}

/** One sweep, added to the totals and logged as one line with the rows per kind. */
export async function runRetentionSweep(db: Database): Promise<RetentionReport> {
  const report = await sweepRetention(db);
  for (const kind of RETENTION_KINDS) totals[kind] += report[kind];
  retentionSwept(report);
  if (RETENTION_KINDS.some((kind) => report[kind] > 0)) {
    log.info({ task: 'retention sweep', removed: report }, `retention sweep: ${describeReport(report)}`);
  }
  return report;
}

/** The retention sweep (RETENTION_SWEEP_INTERVAL_S), once at start and then every interval. */
export async function startRetentionWork(): Promise<() => Promise<void>> {
  return startPeriodic({
    name: 'retention sweep',
    intervalMs: config.retentionSweepIntervalSeconds * 1000,
    runAtStart: true,
    // Logs its own line, rows per kind; the loop's generic line would repeat it.
    run: async (db) => {
      await runRetentionSweep(db);
      return 0;
    },
  });
}
