import { registerDevice } from '@/lib/devices/register';
import { registerDeviceBody } from '@/lib/devices/schemas';
import { route } from '@/lib/http/route';
import { clientIp } from '@/lib/rate-limit/client-ip';

export const POST = route({ auth: 'none', body: registerDeviceBody, status: 201 }, async ({ db, body, req }) =>
  registerDevice(
    db,
    { phoneNumber: body.phone_number, countryCode: body.country_code, label: body.label },
    { clientIp: clientIp(req) },
  ),
);
