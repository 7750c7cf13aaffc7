import { route } from '@/lib/http/route';
// Creating or changing a webhook checks its format (a Twilio-format one: its events, the Auth Token).
import '@/lib/protocols/register';
import { pageOf } from '@/lib/openapi/define';
import { pageQuery } from '@/lib/pagination';
import { DELIVERY_RULES } from '@/lib/webhooks/docs';
import { createWebhook, listWebhooks } from '@/lib/webhooks/manage';
import { createdWebhookSchema, createWebhookBody, webhookSchema } from '@/lib/webhooks/schemas';

export const POST = route(
  {
    auth: 'account',
    body: createWebhookBody,
    status: 201,
    doc: {
      operationId: 'createWebhook',
      summary: 'Create a webhook',
      description: `Answers the webhook with its signing \`secret\`.\n\n${DELIVERY_RULES}`,
      tags: ['Webhooks'],
      response: { description: 'The webhook, with its signing secret.', schema: createdWebhookSchema },
      errors: ['PLAN_LIMIT_REACHED'],
    },
  },
  async ({ db, principal, body }) => createWebhook(db, principal.accountId, body),
);

export const GET = route(
  {
    auth: 'account',
    query: pageQuery,
    doc: {
      operationId: 'listWebhooks',
      summary: 'List webhooks',
      tags: ['Webhooks'],
      response: { description: 'Webhooks, newest first (no secrets).', schema: pageOf(webhookSchema) },
    },
  },
  async ({ db, principal, query }) => listWebhooks(db, principal.accountId, query),
);
