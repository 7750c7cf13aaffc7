import { transferBody } from '@/lib/credits/schemas';
import { transferCredits } from '@/lib/credits/transfer';
import { route } from '@/lib/http/route';

export const POST = route({ auth: 'account', body: transferBody }, async ({ db, principal, body }) =>
  transferCredits(db, principal.accountId, { fromGroup: body.from_group, toGroup: body.to_group, amount: body.amount }),
);
