import { listLedger } from '@/lib/credits/history';
import { ledgerEntrySchema, ledgerQuery } from '@/lib/credits/schemas';
import { route } from '@/lib/http/route';
import { pageOf } from '@/lib/openapi/define';

export const GET = route(
  {
    auth: 'account',
    query: ledgerQuery,
    doc: {
      operationId: 'listCreditLedger',
      summary: 'Credit ledger',
      description:
        'Every credit movement (starter and operator grants, transfers, message charges, refunds, group merges), ' +
        'newest first. A group’s balance equals the sum of its rows.',
      tags: ['Credits'],
      response: { description: 'A page of movements.', schema: pageOf(ledgerEntrySchema) },
      errors: ['GROUP_NOT_FOUND'],
    },
  },
  async ({ db, principal, query }) => listLedger(db, principal.accountId, query),
);
