import { json } from '@/lib/http/route';
import { smsgateHealth } from '@/lib/protocols/smsgate-api/health';
import { integratorRoute } from '@/lib/protocols/smsgate-api/route';
import { healthSchema } from '@/lib/protocols/smsgate-api/schemas';

export const GET = integratorRoute(
  {
    auth: 'none',
    doc: {
      operationId: 'smsgateHealthLive',
      summary: 'Liveness (SMSGate’s shape)',
      description:
        'Without credentials. The checks of `/api/health/live` in SMSGate’s shape: `pass` (200) whenever the process answers; no database query.',
      tags: ['SMSGate integrator API'],
      response: { description: 'The process answers.', schema: healthSchema },
    },
  },
  async ({ db }) => {
    const { status, body } = await smsgateHealth('live', db);
    return json(body, status);
  },
);
