import { readCapped } from '@/lib/http/parse';
import { handleAppCallback } from '@/lib/protocols/smsgate-app/callback';
import { mobileRoute } from '@/lib/protocols/smsgate-app/route';
import { callbackParams } from '@/lib/protocols/smsgate-app/schemas';

// The signature covers the exact bytes the app sent, so the body is read raw, not parsed by the wrapper.
export const POST = mobileRoute({ auth: 'none', params: callbackParams }, async ({ db, params, req }) => {
  await handleAppCallback(db, params.deviceId, await readCapped(req), {
    signature: req.headers.get('x-signature'),
    timestamp: req.headers.get('x-timestamp'),
  });
  return {};
});
