import { verifySimBody } from '@/lib/devices/schemas';
import { verifySim } from '@/lib/devices/verify-sim';
import { route } from '@/lib/http/route';

export const POST = route({ auth: 'none', body: verifySimBody }, async ({ db, body }) =>
  verifySim(db, { deviceId: body.device_id, code: body.code }),
);
