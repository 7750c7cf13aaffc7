import { listLedger } from '@/lib/credits/history';
import { ledgerQuery } from '@/lib/credits/schemas';
import { route } from '@/lib/http/route';

export const GET = route({ auth: 'account', query: ledgerQuery }, async ({ db, principal, query }) =>
  listLedger(db, principal.accountId, query),
);
