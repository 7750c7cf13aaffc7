import { json } from '@/lib/http/route';
import { smsgateHealth } from '@/lib/protocols/smsgate-api/health';
import { integratorRoute } from '@/lib/protocols/smsgate-api/route';
import { healthSchema } from '@/lib/protocols/smsgate-api/schemas';

export const GET = integratorRoute(
  {
    auth: 'none',
    doc: {
      operationId: 'smsgateHealthStartup',
      summary: 'Startup (SMSGate’s shape)',
      description:
        'Without credentials. The checks of `/api/health/startup` in SMSGate’s shape: `pass` (200) once the app has started with its database migrated, `fail` with 503 before.',
      tags: ['SMSGate integrator API'],
      response: { description: 'The app has started.', schema: healthSchema },
    },
  },
  async ({ db }) => {
    const { status, body } = await smsgateHealth('startup', db);
    return json(body, status);
  },
);
