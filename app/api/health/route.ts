import { sql } from 'drizzle-orm';
import { route } from '@/lib/http/route';

/** Liveness and readiness for load balancers: 200 when the database answers, 503 (problem+json) otherwise. */
export const GET = route({ auth: 'none' }, async ({ db }) => {
  await db.execute(sql`select 1`);
  return { status: 'ok' };
});
