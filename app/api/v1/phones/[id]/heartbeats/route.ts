import { listHeartbeats } from '@/lib/heartbeats/history';
import { heartbeatEntrySchema, heartbeatHistoryQuery } from '@/lib/heartbeats/schemas';
import { route } from '@/lib/http/route';
import { pageOf } from '@/lib/openapi/define';
import { phoneIdParams } from '@/lib/phones/schemas';

export const GET = route(
  {
    auth: 'account',
    params: phoneIdParams,
    query: heartbeatHistoryQuery,
    doc: {
      operationId: 'listPhoneHeartbeats',
      summary: 'A phone’s heartbeat history',
      description: 'Newest first, for charts of status and battery over time; `since` (RFC 3339) bounds it.',
      tags: ['Heartbeats', 'Phones'],
      response: { description: 'A page of heartbeats.', schema: pageOf(heartbeatEntrySchema) },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, params, query }) => listHeartbeats(db, principal.accountId, params.id, query),
);
