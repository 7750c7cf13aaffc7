import { REVOKE_PHONE_DEVICE } from '@/lib/devices/docs';
import { revokePhoneDevice } from '@/lib/devices/phone-devices';
import { deviceIdParams } from '@/lib/devices/schemas';
import { route } from '@/lib/http/route';

export const DELETE = route(
  {
    auth: 'account',
    params: deviceIdParams,
    doc: {
      operationId: 'revokePhoneDevice',
      summary: 'Revoke a device',
      description: REVOKE_PHONE_DEVICE,
      tags: ['Phones', 'SMSGate app (mobile)'],
      response: { description: 'Revoked.' },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, params }) => {
    await revokePhoneDevice(db, principal.accountId, params.id, params.device_id);
  },
);
