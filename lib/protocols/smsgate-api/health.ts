import type { Database } from '@/db';
import { type HealthState, type Probe, probe } from '@/lib/runtime/health';

/** What SMSGate's clients read about each check. */
const DESCRIPTIONS: Record<string, string> = {
  process: 'The process answers',
  shutdown: 'The instance is not shutting down',
  started: 'The app has finished starting',
  'db:ping': 'The database answers a query',
  migrations: 'The database holds this release’s migrations',
  listen: 'The instance hears its notifications',
  background: 'The background work runs where it should',
};

/**
 * A probe of lib/runtime/health.ts in SMSGate's shape: `pass` (200) or `fail` (503), each check with
 * its time in ms where it has one. The database check keeps SMSGate's name, `db:ping`.
 */
export async function smsgateHealth(
  kind: Probe,
  db: Database,
  state?: HealthState,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const report = await probe(kind, db, state);
  const status = report.status === 'ok' ? 'pass' : 'fail';
  const checks = Object.fromEntries(
    Object.entries(report.checks).map(([name, check]) => {
      const key = name === 'database' ? 'db:ping' : name;
      const description = check.detail ? `${DESCRIPTIONS[key] ?? key}: ${check.detail}` : (DESCRIPTIONS[key] ?? key);
      return [
        key,
        {
          description,
          observedUnit: 'ms',
          observedValue: check.ms ?? 0,
          status: check.status === 'ok' ? 'pass' : 'fail',
        },
      ];
    }),
  );
  return {
    status: report.status === 'ok' ? 200 : 503,
    body: { status, version: report.version, releaseId: 1, checks },
  };
}
