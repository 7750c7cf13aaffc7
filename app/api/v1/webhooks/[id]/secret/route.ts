import { route } from '@/lib/http/route';
import { revealSecret } from '@/lib/webhooks/manage';
import { secretSchema, webhookParams } from '@/lib/webhooks/schemas';

export const GET = route(
  {
    auth: 'account',
    params: webhookParams,
    doc: {
      operationId: 'getWebhookSecret',
      summary: "Show a webhook's signing secret",
      tags: ['Webhooks'],
      response: { description: 'The current secret.', schema: secretSchema },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, params }) => revealSecret(db, principal.accountId, params.id),
);
