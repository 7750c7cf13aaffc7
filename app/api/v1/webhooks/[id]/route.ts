import { route } from '@/lib/http/route';
import { deleteWebhook, getWebhook, updateWebhook } from '@/lib/webhooks/manage';
import { updateWebhookBody, webhookParams } from '@/lib/webhooks/schemas';

export const GET = route({ auth: 'account', params: webhookParams }, async ({ db, principal, params }) =>
  getWebhook(db, principal.accountId, params.id),
);

export const PATCH = route(
  { auth: 'account', params: webhookParams, body: updateWebhookBody },
  async ({ db, principal, params, body }) => updateWebhook(db, principal.accountId, params.id, body),
);

export const DELETE = route({ auth: 'account', params: webhookParams }, async ({ db, principal, params }) =>
  deleteWebhook(db, principal.accountId, params.id),
);
