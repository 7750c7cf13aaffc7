import { removeSmsgateDevice } from '@/lib/protocols/smsgate-api/devices';
import { integratorRoute } from '@/lib/protocols/smsgate-api/route';
import { deviceParams } from '@/lib/protocols/smsgate-api/schemas';

export const DELETE = integratorRoute(
  {
    auth: 'integrator',
    params: deviceParams,
    doc: {
      operationId: 'smsgateRemoveDevice',
      summary: 'Remove a device (SMSGate)',
      description:
        'Removes the phone as DELETE /api/v1/phones/{id} does (unsent messages refunded, credentials revoked). 204 also for an id that is not one of your phones, which is left alone.',
      tags: ['SMSGate integrator API'],
      response: { description: 'Removed.' },
    },
  },
  async ({ db, principal, params }) => removeSmsgateDevice(db, principal.accountId, params.id),
);
