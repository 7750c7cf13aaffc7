import { listHeartbeats } from '@/lib/heartbeats/history';
import { heartbeatHistoryQuery } from '@/lib/heartbeats/schemas';
import { route } from '@/lib/http/route';
import { phoneIdParams } from '@/lib/phones/schemas';

export const GET = route(
  { auth: 'account', params: phoneIdParams, query: heartbeatHistoryQuery },
  async ({ db, principal, params, query }) => listHeartbeats(db, principal.accountId, params.id, query),
);
