import { listPhoneDevices } from '@/lib/devices/phone-devices';
import { route } from '@/lib/http/route';
import { phoneIdParams } from '@/lib/phones/schemas';

export const GET = route({ auth: 'account', params: phoneIdParams }, async ({ db, principal, params }) =>
  listPhoneDevices(db, principal.accountId, params.id),
);
