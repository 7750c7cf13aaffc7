import { RECORD_HEARTBEAT } from '@/lib/heartbeats/docs';
import { recordHeartbeat } from '@/lib/heartbeats/record';
import { heartbeatBody } from '@/lib/heartbeats/schemas';
import { route } from '@/lib/http/route';
import { presentPhone } from '@/lib/phones/present';
import { phoneSchema } from '@/lib/phones/schemas';

export const POST = route(
  {
    auth: 'any',
    body: heartbeatBody,
    doc: {
      operationId: 'recordHeartbeat',
      summary: 'Report a phone’s status and battery',
      description: RECORD_HEARTBEAT,
      tags: ['Heartbeats'],
      response: { description: 'The phone after the heartbeat.', schema: phoneSchema },
      errors: ['FORBIDDEN'],
    },
  },
  async ({ db, principal, body }) => presentPhone(await recordHeartbeat(db, principal, body)),
);
