import { route } from '@/lib/http/route';
import { listDeliveries } from '@/lib/webhooks/deliveries';
import { deliveryQuery, webhookParams } from '@/lib/webhooks/schemas';

export const GET = route(
  { auth: 'account', params: webhookParams, query: deliveryQuery },
  async ({ db, principal, params, query }) => listDeliveries(db, principal.accountId, params.id, query),
);
