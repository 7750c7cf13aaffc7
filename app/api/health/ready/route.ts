import { route } from '@/lib/http/route';
import { healthReportSchema, probeAnswer } from '@/lib/runtime/health';

/** Readiness: whether this instance should get traffic (lib/runtime/health.ts). */
export const GET = route(
  {
    auth: 'none',
    doc: {
      operationId: 'getHealthReady',
      summary: 'Readiness',
      description:
        'For load balancers and Kubernetes’ readinessProbe. 200 `{ status: "ok", version, checks }` when every check passes: `shutdown` (no SIGTERM drain under way), `started` (the app finished starting), `database` (answers `select 1`), `migrations` (the database holds every migration of this release; one of a newer release is fine), `listen` (this instance hears its own notification over the LISTEN connection that wakes phones) and `background` (the background work runs here, or BACKGROUND=off leaves it to `npm run worker`). Each database check waits 2 s at most. Otherwise 503 `SERVICE_UNAVAILABLE`, never later than 2 s and at once once the shutdown drain has begun: problem+json (`status` is the HTTP status, as in every error) with `version` and `checks` as extension members and the failing checks named in `detail`.',
      tags: ['Meta'],
      response: { description: 'The instance is ready.', schema: healthReportSchema },
      errors: ['SERVICE_UNAVAILABLE'],
    },
  },
  async ({ db }) => probeAnswer('ready', db),
);
