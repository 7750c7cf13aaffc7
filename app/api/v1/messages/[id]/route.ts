import { route } from '@/lib/http/route';
import { getMessage } from '@/lib/messages/list';
import { messageIdParams } from '@/lib/messages/schemas';

export const GET = route({ auth: 'account', params: messageIdParams }, async ({ db, principal, params }) =>
  getMessage(db, principal.accountId, params.id),
);
