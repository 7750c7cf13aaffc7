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
        'Without credentials. Readiness, as `/api/health`: `status: pass` (200) when every check of `/api/health/ready` passes, `fail` with 503 otherwise (application/json in SMSGate’s shape, each check with its description and time in ms; the database’s is `db:ping`).',
      tags: ['SMSGate integrator API'],
      response: { description: 'The instance is ready.', schema: healthSchema },
    },
  },
  async ({ db }) => {
    const { status, body } = await smsgateHealth('ready', db);
    return json(body, status);
  },
);
