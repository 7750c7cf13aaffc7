import { appWebhooks } from '@/lib/protocols/smsgate-app/device';
import { APP_WEBHOOKS } from '@/lib/protocols/smsgate-app/docs';
import { mobileRoute } from '@/lib/protocols/smsgate-app/route';
import { appWebhook } from '@/lib/protocols/smsgate-app/schemas';
import { callbackUrl } from '@/lib/protocols/smsgate-app/urls';
import { z } from '@/lib/zod';

export const GET = mobileRoute(
  {
    auth: 'device',
    doc: {
      operationId: 'listAppWebhooks',
      summary: 'Where the app sends its events',
      description: APP_WEBHOOKS,
      tags: ['SMSGate app (mobile)'],
      response: { description: 'The webhooks.', schema: z.array(appWebhook) },
    },
  },
  async ({ principal, req }) => appWebhooks(callbackUrl(req, principal.deviceId)),
);
