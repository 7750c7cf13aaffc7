import { sql } from 'drizzle-orm';
import { type Database, queryRows } from '@/db';
import journal from '@/db/migrations/meta/_journal.json';
import { config } from '@/lib/config';
import { DomainError } from '@/lib/errors';
import { checkDatabase, checkReadiness, HEALTH_CHECK_TIMEOUT_MS, within } from '@/lib/notify/readiness';
import { type BackgroundState, backgroundState, hasStarted, shuttingDown } from '@/lib/runtime/lifecycle';
import { APP_VERSION } from '@/lib/version';
import { z } from '@/lib/zod';

/**
 * The health probes (`/api/health/live`, `/ready`, `/startup`, and SMSGate's `/health/*`):
 *
 * - `live`: the process answers. No database: a database outage must not get the process restarted.
 * - `ready`: send it traffic. Fails at once when the shutdown drain has begun (no database query
 *   then); otherwise the app has started, the database answers, the database holds every migration
 *   of this release, this instance hears its notifications (LISTEN), and the background work runs
 *   where it should (here, unless BACKGROUND=off leaves it to `npm run worker`).
 * - `startup`: the app has finished starting (configuration checked, database open and migrated,
 *   background work started or left off) and the database holds this release's migrations.
 *
 * Each database check waits HEALTH_CHECK_TIMEOUT_MS at most: a probe never hangs.
 */
export type Probe = 'live' | 'ready' | 'startup';

export const checkSchema = z
  .object({
    status: z.enum(['ok', 'fail']),
    detail: z.string().optional(),
    ms: z.number().int().optional().openapi({ description: 'How long the check took (database checks).' }),
  })
  .openapi('HealthCheck');

export type CheckResult = z.infer<typeof checkSchema>;

export const healthReportSchema = z
  .object({
    status: z.literal('ok'),
    version: z.string().openapi({ description: 'The running code’s version.', example: '0.1.0' }),
    checks: z.record(z.string(), checkSchema).openapi({
      description:
        'By name: `process` (live); `shutdown`, `started`, `database`, `migrations`, `listen`, `background` (ready); `started`, `database`, `migrations` (startup).',
    }),
  })
  .openapi('HealthReport');

/** A probe's report: the 200 body, or with `fail` what a 503 carries. */
export type HealthReport = Omit<z.infer<typeof healthReportSchema>, 'status'> & { status: 'ok' | 'fail' };

/** A migration of this release, as db/migrations/meta/_journal.json lists it (`when` is what the database records). */
export type JournalEntry = { tag: string; when: number };

/** What the probes look at; the routes use the process's own (`processState`), tests their own. */
export type HealthState = {
  draining: () => boolean;
  started: () => boolean;
  /** Whether BACKGROUND asks this process to run the background work. */
  backgroundWanted: () => boolean;
  background: () => BackgroundState | undefined;
  /** Resolves when the database answers within `timeoutMs` (the probe stops waiting then anyway). */
  database: (db: Database, timeoutMs: number) => Promise<void>;
  /** Resolves when this process hears its own notification within `timeoutMs`. */
  listening: (db: Database, timeoutMs: number) => Promise<void>;
  /** The `created_at` (the journal's `when`) of every migration the database has applied. */
  appliedMigrations: (db: Database) => Promise<number[]>;
  journal: readonly JournalEntry[];
  timeoutMs: number;
};

async function appliedMigrations(db: Database): Promise<number[]> {
  // Where drizzle's migrators (PGlite and Postgres alike) record what they applied.
  const rows = await queryRows<{ created_at: unknown }>(db, sql`select created_at from drizzle.__drizzle_migrations`);
  return rows.map((row) => Number(row.created_at));
}

export const processState: HealthState = {
  draining: shuttingDown,
  started: hasStarted,
  backgroundWanted: () => config.backgroundWork,
  background: backgroundState,
  database: checkDatabase,
  listening: checkReadiness,
  appliedMigrations,
  journal: journal.entries,
  timeoutMs: HEALTH_CHECK_TIMEOUT_MS,
};

/** Runs `check`, timed: ok with its detail, or fail with what went wrong (never a database's own message). */
async function timed(
  check: () => Promise<string | undefined>,
  failure: (error: unknown) => string,
): Promise<CheckResult> {
  const started = performance.now();
  const ms = () => Math.round(performance.now() - started);
  try {
    const detail = await check();
    return { status: 'ok', ...(detail ? { detail } : {}), ms: ms() };
  } catch (error) {
    return { status: 'fail', detail: failure(error), ms: ms() };
  }
}

const timedOut = (error: unknown, timeoutMs: number, otherwise: string) =>
  error instanceof Error && error.message.includes(`within ${timeoutMs} ms`)
    ? `no answer within ${timeoutMs} ms`
    : otherwise;

/** Thrown by the migrations check: its message is the check's detail. */
class MigrationsBehind extends Error {}

async function migrationsCheck(db: Database, state: HealthState): Promise<CheckResult> {
  return timed(
    async () => {
      const applied = new Set(await within(state.appliedMigrations(db), state.timeoutMs));
      const missing = state.journal.filter((entry) => !applied.has(entry.when));
      if (missing.length > 0) {
        throw new MigrationsBehind(
          `${missing.length} of this release's ${state.journal.length} migrations not applied: ${missing.map((entry) => entry.tag).join(', ')}`,
        );
      }
      const known = new Set(state.journal.map((entry) => entry.when));
      const newer = [...applied].filter((when) => !known.has(when)).length;
      // A newer release migrated the database (a rolling upgrade): this instance still serves.
      return newer > 0
        ? `${state.journal.length} applied, and ${newer} of a newer release`
        : `${state.journal.length} applied`;
    },
    (error) =>
      error instanceof MigrationsBehind
        ? error.message
        : timedOut(error, state.timeoutMs, 'cannot read the applied migrations'),
  );
}

function databaseCheck(db: Database, state: HealthState): Promise<CheckResult> {
  return timed(
    async () => {
      await within(state.database(db, state.timeoutMs), state.timeoutMs);
      return undefined;
    },
    (error) => timedOut(error, state.timeoutMs, 'the database does not answer'),
  );
}

function listenCheck(db: Database, state: HealthState): Promise<CheckResult> {
  return timed(
    async () => {
      await within(state.listening(db, state.timeoutMs), state.timeoutMs);
      return undefined;
    },
    () => `this instance did not hear its own notification within ${state.timeoutMs} ms (LISTEN)`,
  );
}

function startedCheck(state: HealthState): CheckResult {
  return state.started()
    ? { status: 'ok' }
    : { status: 'fail', detail: 'the app has not finished starting (configuration, database, background work)' };
}

function backgroundCheck(state: HealthState): CheckResult {
  const running = state.background();
  if (running === 'running') return { status: 'ok', detail: 'running in this process' };
  if (running === 'off' || !state.backgroundWanted()) {
    return { status: 'ok', detail: 'off here (BACKGROUND=off): `npm run worker` processes run it' };
  }
  return { status: 'fail', detail: 'not started' };
}

function report(checks: Record<string, CheckResult>): HealthReport {
  const failed = Object.values(checks).some((check) => check.status === 'fail');
  return { status: failed ? 'fail' : 'ok', version: APP_VERSION, checks };
}

/** The probe's report: `status` is `fail` when any of its checks fails. */
export async function probe(kind: Probe, db: Database, state: HealthState = processState): Promise<HealthReport> {
  if (kind === 'live') {
    return report({
      process: { status: 'ok', detail: state.draining() ? 'shutting down: draining requests' : 'answering' },
    });
  }
  if (kind === 'ready' && state.draining()) {
    return report({ shutdown: { status: 'fail', detail: 'shutting down: draining requests' } });
  }
  const [database, migrations, listen] = await Promise.all([
    databaseCheck(db, state),
    migrationsCheck(db, state),
    kind === 'ready' ? listenCheck(db, state) : undefined,
  ]);
  if (kind === 'startup') return report({ started: startedCheck(state), database, migrations });
  return report({
    shutdown: { status: 'ok' },
    started: startedCheck(state),
    database,
    migrations,
    listen: listen as CheckResult,
    background: backgroundCheck(state),
  });
}

/**
 * The answer of one of our probes: the report (200), or 503 as problem+json like every error of the
 * API, `SERVICE_UNAVAILABLE`, with the report's `version` and `checks` as extension members and the
 * failing checks named in `detail`.
 */
export async function probeAnswer(kind: Probe, db: Database, state?: HealthState): Promise<HealthReport> {
  const result = await probe(kind, db, state);
  if (result.status === 'ok') return result;
  const failing = Object.entries(result.checks)
    .filter(([, check]) => check.status === 'fail')
    .map(([name, check]) => (check.detail ? `${name} (${check.detail})` : name));
  throw new DomainError(
    'SERVICE_UNAVAILABLE',
    `Not ${kind === 'startup' ? 'started' : 'ready'}: ${failing.join('; ')}.`,
    {
      headers: { 'Retry-After': '5' },
      extra: { version: result.version, checks: result.checks },
    },
  );
}
