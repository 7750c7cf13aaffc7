import { recordHeartbeat } from '@/lib/heartbeats/record';
import { heartbeatBody } from '@/lib/heartbeats/schemas';
import { route } from '@/lib/http/route';
import { presentPhone } from '@/lib/phones/present';

export const POST = route({ auth: 'any', body: heartbeatBody }, async ({ db, principal, body }) =>
  presentPhone(await recordHeartbeat(db, principal, body)),
);
