import { route } from '@/lib/http/route';
import { pageQuery } from '@/lib/pagination';
import { createWebhook, listWebhooks } from '@/lib/webhooks/manage';
import { createWebhookBody } from '@/lib/webhooks/schemas';

export const POST = route({ auth: 'account', body: createWebhookBody, status: 201 }, async ({ db, principal, body }) =>
  createWebhook(db, principal.accountId, body),
);

export const GET = route({ auth: 'account', query: pageQuery }, async ({ db, principal, query }) =>
  listWebhooks(db, principal.accountId, query),
);
