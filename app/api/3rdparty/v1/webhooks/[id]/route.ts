import { integratorRoute } from '@/lib/protocols/smsgate-api/route';
import { webhookParams } from '@/lib/protocols/smsgate-api/schemas';
import { deleteSmsgateWebhook } from '@/lib/protocols/smsgate-api/webhooks';

export const DELETE = integratorRoute(
  {
    auth: 'integrator',
    params: webhookParams,
    doc: {
      operationId: 'smsgateDeleteWebhook',
      summary: 'Delete a webhook (SMSGate)',
      description: '204 whether it existed or not.',
      tags: ['SMSGate integrator API'],
      response: { description: 'Deleted.' },
    },
  },
  async ({ db, principal, params }) => deleteSmsgateWebhook(db, principal.accountId, params.id),
);
