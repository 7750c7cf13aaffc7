import { route } from '@/lib/http/route';
import { rotateSecret } from '@/lib/webhooks/manage';
import { webhookParams } from '@/lib/webhooks/schemas';

export const POST = route({ auth: 'account', params: webhookParams }, async ({ db, principal, params }) =>
  rotateSecret(db, principal.accountId, params.id),
);
