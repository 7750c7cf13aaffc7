import { route } from '@/lib/http/route';
import { getDelivery } from '@/lib/webhooks/deliveries';
import { deliveryDetailSchema, deliveryParams } from '@/lib/webhooks/schemas';

export const GET = route(
  {
    auth: 'account',
    params: deliveryParams,
    doc: {
      operationId: 'getWebhookDelivery',
      summary: 'Read a delivery with its attempts',
      tags: ['Webhooks'],
      response: { description: 'The delivery, its payload and every attempt.', schema: deliveryDetailSchema },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, params }) => getDelivery(db, principal.accountId, params.id, params.delivery_id),
);
