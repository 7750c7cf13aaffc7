import { appWebhooks } from '@/lib/protocols/smsgate-app/device';
import { mobileRoute } from '@/lib/protocols/smsgate-app/route';
import { callbackUrl } from '@/lib/protocols/smsgate-app/urls';

export const GET = mobileRoute({ auth: 'device' }, async ({ principal, req }) =>
  appWebhooks(callbackUrl(req, principal.deviceId)),
);
