import { route } from '@/lib/http/route';
import { getDelivery } from '@/lib/webhooks/deliveries';
import { deliveryParams } from '@/lib/webhooks/schemas';

export const GET = route({ auth: 'account', params: deliveryParams }, async ({ db, principal, params }) =>
  getDelivery(db, principal.accountId, params.id, params.delivery_id),
);
