import { route } from '@/lib/http/route';
// Creating or changing a webhook checks its format (a Twilio-format one: its events, the Auth Token).
import '@/lib/protocols/register';
import { deleteWebhook, getWebhook, updateWebhook } from '@/lib/webhooks/manage';
import { updateWebhookBody, webhookParams, webhookSchema } from '@/lib/webhooks/schemas';

export const GET = route(
  {
    auth: 'account',
    params: webhookParams,
    doc: {
      operationId: 'getWebhook',
      summary: 'Read a webhook',
      tags: ['Webhooks'],
      response: { description: 'The webhook (no secret).', schema: webhookSchema },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, params }) => getWebhook(db, principal.accountId, params.id),
);

export const PATCH = route(
  {
    auth: 'account',
    params: webhookParams,
    body: updateWebhookBody,
    doc: {
      operationId: 'updateWebhook',
      summary: 'Update, enable or disable a webhook',
      description:
        'Only the fields sent change. `enabled: false` pauses delivery; `enabled: true` resumes it (also after an automatic disable).',
      tags: ['Webhooks'],
      response: { description: 'The updated webhook.', schema: webhookSchema },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, params, body }) => updateWebhook(db, principal.accountId, params.id, body),
);

export const DELETE = route(
  {
    auth: 'account',
    params: webhookParams,
    doc: {
      operationId: 'deleteWebhook',
      summary: 'Delete a webhook',
      description: 'Deletes the webhook and its delivery log.',
      tags: ['Webhooks'],
      response: { description: 'Deleted.' },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, params }) => deleteWebhook(db, principal.accountId, params.id),
);
