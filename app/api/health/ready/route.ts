import { route } from '@/lib/http/route';
import { checkReadiness, HEALTH_CHECK_TIMEOUT_MS, notReady } from '@/lib/notify/readiness';
import { z } from '@/lib/zod';

/** Readiness: the database answers and the instance hears wake-ups (LISTEN), within 2 s. */
export const GET = route(
  {
    auth: 'none',
    doc: {
      operationId: 'getHealthReady',
      summary: 'Readiness',
      description:
        'For load balancers: 200 when the database answers and this instance hears its notifications (the LISTEN connection that wakes phones), both within 2 s; 503 `SERVICE_UNAVAILABLE` otherwise, never later.',
      tags: ['Meta'],
      response: { description: 'The instance is ready.', schema: z.object({ status: z.literal('ok') }) },
      errors: ['SERVICE_UNAVAILABLE'],
    },
  },
  async ({ db }) => {
    await checkReadiness(db, HEALTH_CHECK_TIMEOUT_MS).catch(() => {
      throw notReady('The database does not answer, or this instance does not hear its notifications.');
    });
    return { status: 'ok' };
  },
);
