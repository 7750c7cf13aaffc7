import { sql } from 'drizzle-orm';
import { getDb } from '@/db';
import { readSetting } from '@/lib/config/env';

// The benchmark's planner statistics: ANALYZE messages, as autovacuum (on the embedded database,
// lib/server/embedded-maintenance.ts) would within a minute of the rows arriving, where the
// benchmark cannot wait that long. Answers 404 unless the server runs with BENCH=1.
export async function POST(): Promise<Response> {
  if (!readSetting('BENCH')) return new Response(null, { status: 404 });
  const db = await getDb();
  await db.execute(sql`analyze messages`);
  return new Response(null, { status: 204 });
}
