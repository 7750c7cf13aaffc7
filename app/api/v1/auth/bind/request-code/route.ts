import { requestBindCode } from '@/lib/devices/bind-email';
import { bindRequestBody } from '@/lib/devices/schemas';
import { route } from '@/lib/http/route';

export const POST = route({ auth: 'device', body: bindRequestBody, status: 202 }, async ({ db, principal, body }) =>
  requestBindCode(db, principal.deviceId, body.email),
);
