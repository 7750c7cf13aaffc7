import { json } from '@/lib/http/route';
import { smsgateHealth } from '@/lib/protocols/smsgate-api/health';
import { integratorRoute } from '@/lib/protocols/smsgate-api/route';
import { healthSchema } from '@/lib/protocols/smsgate-api/schemas';

export const GET = integratorRoute(
  {
    auth: 'none',
    doc: {
      operationId: 'smsgateHealth',
      summary: 'Health (SMSGate’s shape)',
      description:
        'Without credentials. `status: pass`, or `fail` with 503 when the database does not answer (the same check as /api/health). Also at /health/live, /health/ready and /health/startup.',
      tags: ['SMSGate integrator API'],
      response: { description: 'The service is healthy.', schema: healthSchema },
    },
  },
  async ({ db }) => {
    const { status, body } = await smsgateHealth(db);
    return json(body, status);
  },
);
