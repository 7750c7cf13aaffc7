import { route } from '@/lib/http/route';
import { getBulk } from '@/lib/messages/bulk';
import { bulkIdParams } from '@/lib/messages/schemas';

export const GET = route({ auth: 'account', params: bulkIdParams }, async ({ db, principal, params }) =>
  getBulk(db, principal.accountId, params.id),
);
