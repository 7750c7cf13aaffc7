import { route } from '@/lib/http/route';
import { queueTestEvent } from '@/lib/webhooks/deliveries';
import { webhookParams } from '@/lib/webhooks/schemas';

export const POST = route({ auth: 'account', params: webhookParams, status: 202 }, async ({ db, principal, params }) =>
  queueTestEvent(db, principal.accountId, params.id),
);
