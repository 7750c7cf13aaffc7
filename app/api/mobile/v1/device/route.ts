import { describeApp, registerApp, updateApp } from '@/lib/protocols/smsgate-app/device';
import { mobileRoute } from '@/lib/protocols/smsgate-app/route';
import { patchDeviceBody, registerDeviceBody } from '@/lib/protocols/smsgate-app/schemas';
import { clientIp } from '@/lib/rate-limit/client-ip';

export const POST = mobileRoute({ auth: 'none', body: registerDeviceBody, status: 201 }, async ({ db, req, body }) =>
  registerApp(db, req.headers.get('authorization'), body ?? {}, { clientIp: clientIp(req) }),
);

export const GET = mobileRoute({ auth: 'device' }, async ({ db, principal, req }) =>
  describeApp(db, principal, { clientIp: clientIp(req) }),
);

export const PATCH = mobileRoute({ auth: 'device', body: patchDeviceBody }, async ({ db, principal, body }) => {
  await updateApp(db, principal, body);
});
