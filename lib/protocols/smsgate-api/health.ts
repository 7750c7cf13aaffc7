import { sql } from 'drizzle-orm';
import type { Database } from '@/db';

/** What a health probe answers, in SMSGate's shape: `fail` (503) when the database does not answer. */
export async function smsgateHealth(db: Database): Promise<{ status: number; body: Record<string, unknown> }> {
  const started = performance.now();
  let ok = true;
  try {
    await db.execute(sql`select 1`);
  } catch {
    ok = false;
  }
  const status = ok ? 'pass' : 'fail';
  return {
    status: ok ? 200 : 503,
    body: {
      status,
      version: '1.0.0',
      releaseId: 1,
      checks: {
        'db:ping': {
          description: 'The database answers a query',
          observedUnit: 'ms',
          observedValue: Math.round(performance.now() - started),
          status,
        },
      },
    },
  };
}
