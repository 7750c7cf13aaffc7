import { route } from '@/lib/http/route';
import { healthReportSchema, probeAnswer } from '@/lib/runtime/health';

/** Startup: the app finished starting (lib/runtime/health.ts). */
export const GET = route(
  {
    auth: 'none',
    doc: {
      operationId: 'getHealthStartup',
      summary: 'Startup',
      description:
        'For Kubernetes’ startupProbe: 200 `{ status: "ok", version, checks }` once the app has finished starting (`started`: configuration checked, database open and migrated, background work started or left off) and the database answers (`database`) with every migration of this release (`migrations`). Otherwise 503 `SERVICE_UNAVAILABLE`, problem+json with `version` and `checks` as extension members, within 2 s.',
      tags: ['Meta'],
      response: { description: 'The app has started.', schema: healthReportSchema },
      errors: ['SERVICE_UNAVAILABLE'],
    },
  },
  async ({ db }) => probeAnswer('startup', db),
);
