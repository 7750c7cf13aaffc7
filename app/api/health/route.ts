import { route } from '@/lib/http/route';
import { healthReportSchema, probeAnswer } from '@/lib/runtime/health';

/** Readiness, at the path load balancers have always probed: the same checks and body as /api/health/ready. */
export const GET = route(
  {
    auth: 'none',
    doc: {
      operationId: 'getHealth',
      summary: 'Readiness (the load balancers’ path)',
      description:
        'The same answer as `GET /api/health/ready`: 200 `{ status: "ok", version, checks }` when this instance should get traffic, 503 `SERVICE_UNAVAILABLE` otherwise (problem+json with the same `version` and `checks` as extension members). See also `/api/health/live` and `/api/health/startup`.',
      tags: ['Meta'],
      response: { description: 'The instance is ready.', schema: healthReportSchema },
      errors: ['SERVICE_UNAVAILABLE'],
    },
  },
  async ({ db }) => probeAnswer('ready', db),
);
