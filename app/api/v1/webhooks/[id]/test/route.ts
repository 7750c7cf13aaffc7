import { route } from '@/lib/http/route';
import { queueTestEvent } from '@/lib/webhooks/deliveries';
import { deliverySchema, webhookParams } from '@/lib/webhooks/schemas';

export const POST = route(
  {
    auth: 'account',
    params: webhookParams,
    status: 202,
    doc: {
      operationId: 'sendWebhookTest',
      summary: 'Send a test event',
      description:
        'Queues a signed `webhook.test` event to this webhook only, whatever its events; follow it with the delivery endpoints. A disabled webhook sends it once enabled.',
      tags: ['Webhooks'],
      response: { description: 'The queued delivery.', schema: deliverySchema },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, params }) => queueTestEvent(db, principal.accountId, params.id),
);
