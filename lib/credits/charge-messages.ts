import { and, eq, gte, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { phoneGroups } from '@/db/schema';
import { refusedDebitError } from './ledger';

/**
 * `moveCredits` for many messages at once: one guarded balance update of -N and N
 * `message_charge` ledger rows in one INSERT … SELECT, each with its message id and the balance
 * after it (so the ledger reads as N single charges). All or nothing: if the group cannot cover
 * all N, nothing moves and INSUFFICIENT_CREDITS is thrown. Run it in the transaction that
 * inserts the messages.
 */
export async function chargeMessages(
  tx: Executor,
  charge: { accountId: string; groupId: number; messageIds: string[]; insufficientStatus?: 400 | 402 },
): Promise<{ balanceAfter: number }> {
  const { accountId, groupId, messageIds } = charge;
  const count = messageIds.length;
  if (count === 0) throw new Error('chargeMessages: no messages');
  const [updated] = await tx
    .update(phoneGroups)
    .set({ balance: sql`${phoneGroups.balance} - ${count}` })
    .where(and(eq(phoneGroups.id, groupId), eq(phoneGroups.accountId, accountId), gte(phoneGroups.balance, count)))
    .returning({ balance: phoneGroups.balance });
  if (!updated) {
    throw await refusedDebitError(tx, { accountId, groupId, required: count, status: charge.insufficientStatus });
  }
  // One array parameter whatever N is (uuids need no quoting in an array literal).
  const ids = `{${messageIds.join(',')}}`;
  await tx.execute(sql`
    insert into credit_ledger (account_id, group_id, kind, amount, balance_after, message_id)
    select ${accountId}::uuid, ${groupId}::int, 'message_charge', -1, ${updated.balance + count}::int - t.ord::int, t.id
    from unnest(${ids}::uuid[]) with ordinality as t(id, ord)
  `);
  return { balanceAfter: updated.balance };
}
