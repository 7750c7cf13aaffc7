import { REGISTER_DEVICE } from '@/lib/devices/docs';
import { registerDevice } from '@/lib/devices/register';
import { registerDeviceBody, registerDeviceResponse } from '@/lib/devices/schemas';
import { route } from '@/lib/http/route';
import { clientIp } from '@/lib/rate-limit/client-ip';

export const POST = route(
  {
    auth: 'none',
    body: registerDeviceBody,
    status: 201,
    doc: {
      operationId: 'registerDevice',
      summary: 'Step 1: register a device by its number',
      description: REGISTER_DEVICE,
      tags: ['Device activation'],
      response: { description: 'The pending device; the code is on its way.', schema: registerDeviceResponse },
      errors: ['RATE_LIMITED', 'SERVICE_UNAVAILABLE'],
    },
  },
  async ({ db, body, req }) =>
    registerDevice(
      db,
      { phoneNumber: body.phone_number, countryCode: body.country_code, label: body.label },
      { clientIp: clientIp(req) },
    ),
);
