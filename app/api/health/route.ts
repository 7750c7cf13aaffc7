import { sql } from 'drizzle-orm';
import { route } from '@/lib/http/route';
import { z } from '@/lib/zod';

/** Liveness and readiness for load balancers: 200 when the database answers, 503 (problem+json) otherwise. */
export const GET = route(
  {
    auth: 'none',
    doc: {
      operationId: 'getHealth',
      summary: 'Liveness and readiness',
      description: 'For load balancers: 200 when the database answers, 503 `SERVICE_UNAVAILABLE` otherwise.',
      tags: ['Meta'],
      response: { description: 'The service and its database answer.', schema: z.object({ status: z.literal('ok') }) },
      errors: ['SERVICE_UNAVAILABLE'],
    },
  },
  async ({ db }) => {
    await db.execute(sql`select 1`);
    return { status: 'ok' };
  },
);
