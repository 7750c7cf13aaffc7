import { route } from '@/lib/http/route';
import { revealSecret } from '@/lib/webhooks/manage';
import { webhookParams } from '@/lib/webhooks/schemas';

export const GET = route({ auth: 'account', params: webhookParams }, async ({ db, principal, params }) =>
  revealSecret(db, principal.accountId, params.id),
);
