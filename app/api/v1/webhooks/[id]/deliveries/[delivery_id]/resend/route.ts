import { route } from '@/lib/http/route';
import { resendDelivery } from '@/lib/webhooks/deliveries';
import { deliveryParams, deliverySchema } from '@/lib/webhooks/schemas';

export const POST = route(
  {
    auth: 'account',
    params: deliveryParams,
    status: 202,
    doc: {
      operationId: 'resendWebhookDelivery',
      summary: 'Resend a delivery',
      description:
        'Queues the delivery for an attempt now, whatever its state, with the same `webhook-id`. A disabled webhook sends it once enabled.',
      tags: ['Webhooks'],
      response: { description: 'The requeued delivery.', schema: deliverySchema },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, params }) => resendDelivery(db, principal.accountId, params.id, params.delivery_id),
);
