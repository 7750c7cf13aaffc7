import { route } from '@/lib/http/route';
import { checkDatabase, HEALTH_CHECK_TIMEOUT_MS, notReady } from '@/lib/notify/readiness';
import { z } from '@/lib/zod';

/** Liveness and readiness for load balancers: 200 when the database answers, 503 (problem+json) otherwise. */
export const GET = route(
  {
    auth: 'none',
    doc: {
      operationId: 'getHealth',
      summary: 'Liveness and readiness',
      description:
        'For load balancers: 200 when the database answers within 2 s, 503 `SERVICE_UNAVAILABLE` otherwise. `/api/health/ready` also checks that the instance hears wake-ups.',
      tags: ['Meta'],
      response: { description: 'The service and its database answer.', schema: z.object({ status: z.literal('ok') }) },
      errors: ['SERVICE_UNAVAILABLE'],
    },
  },
  async ({ db }) => {
    await checkDatabase(db, HEALTH_CHECK_TIMEOUT_MS).catch(() => {
      throw notReady('The database does not answer.');
    });
    return { status: 'ok' };
  },
);
