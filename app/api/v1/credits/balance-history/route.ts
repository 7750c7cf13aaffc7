import { balanceHistory } from '@/lib/credits/history';
import { balanceHistoryQuery, balanceHistorySchema } from '@/lib/credits/schemas';
import { route } from '@/lib/http/route';

export const GET = route(
  {
    auth: 'account',
    query: balanceHistoryQuery,
    doc: {
      operationId: 'creditBalanceHistory',
      summary: 'Balance over time',
      description:
        'The closing balance of each of the last `days` UTC days, oldest first, of one group (`group_id`, also a ' +
        'deleted one) or of the whole account. Today’s entry is the balance now. Drawn by the dashboard’s ' +
        'credits chart.',
      tags: ['Credits'],
      response: { description: 'One balance per day.', schema: balanceHistorySchema },
      errors: ['GROUP_NOT_FOUND'],
    },
  },
  async ({ db, principal, query }) => balanceHistory(db, principal.accountId, query),
);
