import { route } from '@/lib/http/route';
import { pageOf } from '@/lib/openapi/define';
import { listDeliveries } from '@/lib/webhooks/deliveries';
import { deliveryQuery, deliverySchema, webhookParams } from '@/lib/webhooks/schemas';

export const GET = route(
  {
    auth: 'account',
    params: webhookParams,
    query: deliveryQuery,
    doc: {
      operationId: 'listWebhookDeliveries',
      summary: "List a webhook's deliveries",
      tags: ['Webhooks'],
      response: { description: 'Deliveries, newest first.', schema: pageOf(deliverySchema) },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, params, query }) => listDeliveries(db, principal.accountId, params.id, query),
);
