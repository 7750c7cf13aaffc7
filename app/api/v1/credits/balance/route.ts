import { getBalances, getGroupBalance } from '@/lib/credits/balance';
import { balanceQuery } from '@/lib/credits/schemas';
import { route } from '@/lib/http/route';

export const GET = route({ auth: 'account', query: balanceQuery }, async ({ db, principal, query }) =>
  query.group_id === undefined
    ? getBalances(db, principal.accountId)
    : getGroupBalance(db, principal.accountId, query.group_id),
);
