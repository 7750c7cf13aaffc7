import { getBalances, getGroupBalance } from '@/lib/credits/balance';
import { balanceQuery, balancesSchema, groupBalanceSchema } from '@/lib/credits/schemas';
import { route } from '@/lib/http/route';
import { z } from '@/lib/zod';

export const GET = route(
  {
    auth: 'account',
    query: balanceQuery,
    doc: {
      operationId: 'getCreditBalances',
      summary: 'Credit balances',
      description:
        'Without `group_id`: every group’s balance and the total. With `group_id`: that group’s balance alone.',
      tags: ['Credits'],
      response: { description: 'Balances.', schema: z.union([balancesSchema, groupBalanceSchema]) },
      errors: ['GROUP_NOT_FOUND'],
    },
  },
  async ({ db, principal, query }) =>
    query.group_id === undefined
      ? getBalances(db, principal.accountId)
      : getGroupBalance(db, principal.accountId, query.group_id),
);
