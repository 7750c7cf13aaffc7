import { route } from '@/lib/http/route';
import { rotateSecret } from '@/lib/webhooks/manage';
import { secretSchema, webhookParams } from '@/lib/webhooks/schemas';

export const POST = route(
  {
    auth: 'account',
    params: webhookParams,
    doc: {
      operationId: 'rotateWebhookSecret',
      summary: 'Rotate the signing secret',
      description:
        'Answers the new secret. The previous one keeps signing alongside it for 24 h, so `webhook-signature` carries two signatures meanwhile.',
      tags: ['Webhooks'],
      response: { description: 'The new secret.', schema: secretSchema },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, params }) => rotateSecret(db, principal.accountId, params.id),
);
