import { route } from '@/lib/http/route';
import { healthReportSchema, probeAnswer } from '@/lib/runtime/health';

/** Liveness: the process answers (lib/runtime/health.ts). No database query. */
export const GET = route(
  {
    auth: 'none',
    doc: {
      operationId: 'getHealthLive',
      summary: 'Liveness',
      description:
        'For Kubernetes’ livenessProbe: 200 `{ status: "ok", version, checks: { process } }` whenever the process answers, during the SIGTERM drain too. It asks nothing of the database, so a database outage never gets instances restarted (readiness takes them out of traffic instead).',
      tags: ['Meta'],
      response: { description: 'The process answers.', schema: healthReportSchema },
    },
  },
  async ({ db }) => probeAnswer('live', db),
);
