import { revokePhoneDevice } from '@/lib/devices/phone-devices';
import { deviceIdParams } from '@/lib/devices/schemas';
import { route } from '@/lib/http/route';

export const DELETE = route({ auth: 'account', params: deviceIdParams }, async ({ db, principal, params }) => {
  await revokePhoneDevice(db, principal.accountId, params.id, params.device_id);
});
