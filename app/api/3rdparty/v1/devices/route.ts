import { listSmsgateDevices } from '@/lib/protocols/smsgate-api/devices';
import { integratorRoute } from '@/lib/protocols/smsgate-api/route';
import { deviceSchema } from '@/lib/protocols/smsgate-api/schemas';
import { z } from '@/lib/zod';

export const GET = integratorRoute(
  {
    auth: 'integrator',
    doc: {
      operationId: 'smsgateListDevices',
      summary: 'List devices (SMSGate)',
      description:
        'The account’s phones: `id` is the phone id (what `deviceId` takes), `name` its label or number, `lastSeen` its last heartbeat, `simCards` the SIMs it reported (else its own number in slot 1).',
      tags: ['SMSGate integrator API'],
      response: { description: 'The devices.', schema: z.array(deviceSchema) },
    },
  },
  async ({ db, principal }) => listSmsgateDevices(db, principal.accountId),
);
