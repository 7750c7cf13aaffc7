import { confirmBind } from '@/lib/devices/bind-email';
import { bindConfirmBody } from '@/lib/devices/schemas';
import { route } from '@/lib/http/route';

export const POST = route({ auth: 'device', body: bindConfirmBody }, async ({ db, principal, body }) =>
  confirmBind(db, principal.deviceId, body.code),
);
