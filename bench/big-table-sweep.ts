// The retention sweep of bench/big-table.ts, in a process of its own as a worker runs it: one pass of
// lib/retention over DATABASE_URL with BENCH_SWEEP_BUDGET_MS, answering its report and time as JSON.
import { closeDatabase, getDatabase, locateDatabase } from '../db';
import { assertConfig, config } from '../lib/config';
import { sweepRetention } from '../lib/retention/sweep';

async function main(): Promise<void> {
  assertConfig();
  locateDatabase(config.database);
  const { db } = await getDatabase();
  const started = performance.now();
  const report = await sweepRetention(db, { budgetMs: Number(process.env.BENCH_SWEEP_BUDGET_MS ?? 30_000) });
  const ms = performance.now() - started;
  process.stdout.write(`${JSON.stringify({ report, ms })}\n`);
  await closeDatabase();
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
