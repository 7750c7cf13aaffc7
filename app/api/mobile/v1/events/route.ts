import { openAppEvents } from '@/lib/protocols/smsgate-app/events';
import { mobileRoute } from '@/lib/protocols/smsgate-app/route';

export const GET = mobileRoute({ auth: 'device' }, async ({ db, principal, req }) =>
  openAppEvents(db, principal, req.signal),
);
