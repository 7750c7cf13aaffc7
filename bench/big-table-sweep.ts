// The sweeps of bench/big-table.ts, each in a process of its own as a worker runs it, over
// DATABASE_URL: BENCH_SWEEP=retention (the default), one pass of lib/retention with
// BENCH_SWEEP_BUDGET_MS; BENCH_SWEEP=rollups, a pass of the statistics' rollup sweep over every
// account (lib/messages/daily-counts.ts). Answers its report and time as JSON.
import { closeDatabase, getDatabase, locateDatabase } from '../db';
import { assertConfig, config } from '../lib/config';
import { rollUpDailyCounts } from '../lib/messages/daily-counts';
import { sweepRetention } from '../lib/retention/sweep';

async function main(): Promise<void> {
  assertConfig();
  locateDatabase(config.database);
  const { db } = await getDatabase();
  const budgetMs = Number(process.env.BENCH_SWEEP_BUDGET_MS ?? 30_000);
  const started = performance.now();
  const report =
    process.env.BENCH_SWEEP === 'rollups'
      ? { days: await rollUpDailyCounts(db, { budgetMs, everyAccount: true }) }
      : await sweepRetention(db, { budgetMs });
  const ms = performance.now() - started;
  process.stdout.write(`${JSON.stringify({ report, ms })}\n`);
  await closeDatabase();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
