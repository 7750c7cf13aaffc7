// `npm test`: type-check, lint, migrations, a production build and its page sizes, Vitest (unit + API integration,
// server tests on the build), Playwright end to end, then the API suites in Citus mode where Citus is installed.
// Stops at the first failing step, exit non-zero.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The committed migrations are consistent (`drizzle-kit check`) and describe db/schema exactly:
 * `drizzle-kit generate` run against a temporary copy of db/migrations must find nothing to write.
 * The copy keeps this step from ever writing into db/migrations.
 */
function migrationsMatchSchema() {
  const check = run('npx', ['drizzle-kit', 'check']);
  if (check !== 0) return check;
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-migrations-'));
  try {
    const copy = path.join(scratch, 'migrations');
    fs.cpSync(path.join('db', 'migrations'), copy, { recursive: true });
    const before = fs.readdirSync(copy, { recursive: true }).sort().join('\n');
    // drizzle-kit wants --out relative to the working directory; stdin closed so a prompt fails, never waits.
    const generated = run(
      'npx',
      [
        'drizzle-kit',
        'generate',
        '--dialect',
        'postgresql',
        '--schema',
        './db/schema/index.ts',
        '--out',
        path.relative(process.cwd(), copy),
      ],
      { stdio: ['ignore', 'inherit', 'inherit'], timeout: 120_000 },
    );
    if (generated !== 0) return generated;
    if (fs.readdirSync(copy, { recursive: true }).sort().join('\n') !== before) {
      console.error('\nschema changed without a migration: run npm run db:generate');
      return 1;
    }
    return 0;
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}

/**
 * deploy/prometheus: the rules and the example configuration are valid, and every alert's unit test
 * (the series that fire it and those that do not) passes. Needs promtool (Debian's `prometheus`).
 */
function alertRules() {
  if (spawnSync('promtool', ['--version'], { stdio: 'ignore' }).error) {
    console.error("promtool not found: install Debian's `prometheus` package (apt-get install prometheus)");
    return 1;
  }
  const dir = path.join('deploy', 'prometheus');
  return (
    run('promtool', ['check', 'rules', path.join(dir, 'alerts.yml')]) ||
    run('promtool', ['check', 'config', '--syntax-only', path.join(dir, 'prometheus.yml')]) ||
    run('promtool', ['test', 'rules', path.join(dir, 'alerts.test.yml')])
  );
}

/** Where scripts/citus-build.sh installs Citus for the PostgreSQL 15 that scripts/citus-cluster.sh runs. */
const CITUS_LIBRARY = '/usr/lib/postgresql/15/lib/citus.so';
const CITUS_COORDINATOR = 'postgres://postgres@127.0.0.1:5440/postgres';

function citusClusterUp() {
  const listed = spawnSync('pg_lsclusters', ['-h'], { encoding: 'utf8' });
  return /^15\s+citus_coord\s+\d+\s+online/m.test(listed.stdout ?? '');
}

/**
 * The Citus mode (docs/past-one-machine.md): the API suites, the distribute step's test, the
 * device simulator's loop against `npm start` and the retention sweep, again on a Citus coordinator and two workers of this
 * machine (scripts/citus-cluster.sh, ports 5440-5442), every test database distributed by account;
 * then the query-log check over that run's statements. It runs wherever Citus is installed
 * (scripts/citus-build.sh); where it is not, or with TEST_CITUS=0, a notice says that it did not run.
 * A cluster this step brought up is dropped afterwards.
 */
function citusSuites() {
  const skipped = (why) => {
    console.log(`\n⚠ Citus mode NOT run: ${why}. Build Citus with scripts/citus-build.sh (docs/past-one-machine.md).`);
    return 0;
  };
  if (process.env.TEST_CITUS === '0') return skipped('TEST_CITUS=0');
  if (!fs.existsSync(CITUS_LIBRARY)) return skipped(`Citus is not installed here (${CITUS_LIBRARY})`);
  const wasUp = citusClusterUp();
  const up = run('scripts/citus-cluster.sh', ['up']);
  if (up !== 0) return up;
  const citusLog = fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-query-log-citus-'));
  try {
    const env = { ...build, TEST_CITUS: '1', TEST_DATABASE_URL: CITUS_COORDINATOR, QUERY_LOG_DIR: citusLog };
    const suites = [
      'test/api',
      'test/citus-distribute.test.ts',
      'test/citus-loop-server.test.ts',
      'test/retention.test.ts',
      'test/retention-duty.test.ts',
    ];
    // --retry=1: Citus's distributed deadlock detector has cancelled a write to a reference table up to
    // once per run of these suites here. The last-use writes that closed those cycles now go one at a
    // time; a test's own write may still meet one (docs/past-one-machine.md). A test passed on its second
    // try shows so in the report.
    return (
      run('npx', ['vitest', 'run', '--retry=1', ...suites], env) ||
      run('npx', ['tsx', 'scripts/check-query-log.ts', '--part', citusLog])
    );
  } finally {
    fs.rmSync(citusLog, { recursive: true, force: true });
    if (!wasUp) run('scripts/citus-cluster.sh', ['down']);
  }
}

function run(command, args, env = {}) {
  console.log(`$ ${command} ${args.join(' ')}`);
  return spawnSync(command, args, { stdio: 'inherit', env: { ...process.env, ...env } }).status ?? 1;
}

// One production build, into its own folder so it never races a developer's `.next`: the
// server tests in Vitest (SIGTERM under load) and the Playwright suite run it, and the release's
// test (test/package.test.ts) packages its standalone output.
const build = { NEXT_DIST_DIR: '.next-e2e' };

const queryLog = fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-query-log-'));
process.on('exit', () => fs.rmSync(queryLog, { recursive: true, force: true }));

const steps = [
  ['type-check', () => run('npx', ['tsc', '--noEmit'])],
  ['lint', () => run('npx', ['biome', 'check', '.'])],
  ['migrations', migrationsMatchSchema],
  ['alert rules', alertRules],
  ['build', () => run(process.execPath, ['node_modules/next/dist/bin/next', 'build'], build)],
  // First-load JavaScript per page within its budget (200 kB gzipped), read from that build.
  ['size', () => run(process.execPath, ['scripts/size.mjs'], build)],
  // Every statement the product sends (not the tests' own setup) is logged, once per text and origin,
  // into a fresh folder (db/query-log.ts), which the next step checks.
  ['vitest', () => run('npx', ['vitest', 'run'], { ...build, QUERY_LOG_DIR: queryLog })],
  // Every statement on an account's table filters by account_id, unless allowed (lib/ops/query-allowlist.ts).
  ['query log', () => run('npx', ['tsx', 'scripts/check-query-log.ts', queryLog])],
  ['playwright', () => run('npx', ['playwright', 'test'], { ...build, E2E_PREBUILT: '1' })],
  ['citus', citusSuites],
];

for (const [name, step] of steps) {
  console.log(`\n▶ ${name}`);
  const started = Date.now();
  const status = step();
  const seconds = ((Date.now() - started) / 1000).toFixed(1);
  if (status !== 0) {
    console.error(`\n✖ ${name} failed after ${seconds}s`);
    process.exit(status);
  }
  console.log(`✔ ${name} (${seconds}s)`);
}
