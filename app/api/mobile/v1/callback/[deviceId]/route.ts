import { assertJsonDepth, readCapped } from '@/lib/http/parse';
import { handleAppCallback } from '@/lib/protocols/smsgate-app/callback';
import { APP_CALLBACK } from '@/lib/protocols/smsgate-app/docs';
import { mobileRoute } from '@/lib/protocols/smsgate-app/route';
import { callbackEnvelope, callbackParams } from '@/lib/protocols/smsgate-app/schemas';
import { z } from '@/lib/zod';

// The signature covers the exact bytes the app sent, so the body is read raw, not parsed by the wrapper.
export const POST = mobileRoute(
  {
    auth: 'none',
    params: callbackParams,
    doc: {
      operationId: 'receiveAppCallback',
      summary: 'The app’s webhook calls',
      description: APP_CALLBACK,
      tags: ['SMSGate app (mobile)'],
      rawBody: callbackEnvelope,
      response: { description: 'Taken.', schema: z.object({}) },
      errors: ['UNAUTHENTICATED', 'FORBIDDEN'],
    },
  },
  async ({ db, params, req }) => {
    const raw = await readCapped(req);
    assertJsonDepth(raw);
    await handleAppCallback(db, params.deviceId, raw, {
      signature: req.headers.get('x-signature'),
      timestamp: req.headers.get('x-timestamp'),
    });
    return {};
  },
);
