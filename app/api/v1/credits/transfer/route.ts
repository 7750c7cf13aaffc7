import { transferBody, transferResultSchema } from '@/lib/credits/schemas';
import { transferCredits } from '@/lib/credits/transfer';
import { statusOf } from '@/lib/errors';
import { route } from '@/lib/http/route';

export const POST = route(
  {
    auth: 'account',
    body: transferBody,
    doc: {
      operationId: 'transferCredits',
      summary: 'Transfer credits between groups',
      description:
        '`from_group` defaults to the default group and must differ from `to_group`. Too few credits in ' +
        'the source answers 400 `INSUFFICIENT_CREDITS` and moves nothing. The ledger records a ' +
        '`transfer_out` and a `transfer_in` row sharing `transfer_id`.',
      tags: ['Credits'],
      response: { description: 'Both groups’ balances after the transfer.', schema: transferResultSchema },
      // A transfer short of credits is the caller's mistake (400), not a payment to make (a send's 402).
      errors: [
        'GROUP_NOT_FOUND',
        { code: 'INSUFFICIENT_CREDITS', status: statusOf('INSUFFICIENT_CREDITS', 'transfer') },
      ],
    },
  },
  async ({ db, principal, body }) =>
    transferCredits(db, principal.accountId, {
      fromGroup: body.from_group,
      toGroup: body.to_group,
      amount: body.amount,
    }),
);
