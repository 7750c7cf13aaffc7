import { route } from '@/lib/http/route';
import { resendDelivery } from '@/lib/webhooks/deliveries';
import { deliveryParams } from '@/lib/webhooks/schemas';

export const POST = route({ auth: 'account', params: deliveryParams, status: 202 }, async ({ db, principal, params }) =>
  resendDelivery(db, principal.accountId, params.id, params.delivery_id),
);
