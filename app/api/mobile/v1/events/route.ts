import { APP_EVENTS_STREAM } from '@/lib/protocols/smsgate-app/docs';
import { openAppEvents } from '@/lib/protocols/smsgate-app/events';
import { mobileRoute } from '@/lib/protocols/smsgate-app/route';
import { z } from '@/lib/zod';

export const GET = mobileRoute(
  {
    auth: 'device',
    doc: {
      operationId: 'streamAppEvents',
      summary: 'Server-Sent Events: new messages as they are queued',
      description: APP_EVENTS_STREAM,
      tags: ['SMSGate app (mobile)'],
      response: { description: 'The event stream.', schema: z.string(), mediaType: 'text/event-stream' },
      errors: ['RATE_LIMITED', 'SERVICE_UNAVAILABLE', 'DEVICE_NOT_ACTIVATED', 'FORBIDDEN'],
    },
  },
  async ({ db, principal, req }) => openAppEvents(db, principal, req.signal),
);
