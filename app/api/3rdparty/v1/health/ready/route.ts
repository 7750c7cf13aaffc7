import { json } from '@/lib/http/route';
import { smsgateHealth } from '@/lib/protocols/smsgate-api/health';
import { integratorRoute } from '@/lib/protocols/smsgate-api/route';
import { healthSchema } from '@/lib/protocols/smsgate-api/schemas';

export const GET = integratorRoute(
  {
    auth: 'none',
    doc: {
      operationId: 'smsgateHealthReady',
      summary: 'Readiness (SMSGate’s shape)',
      description:
        'Without credentials. The checks of `/api/health/ready` in SMSGate’s shape: `pass` (200), or `fail` with 503 (at once once the shutdown drain has begun).',
      tags: ['SMSGate integrator API'],
      response: { description: 'The instance is ready.', schema: healthSchema },
    },
  },
  async ({ db }) => {
    const { status, body } = await smsgateHealth('ready', db);
    return json(body, status);
  },
);
