import { and, eq, gte, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { creditLedger, type LedgerKind, phoneGroups } from '@/db/schema';
import { DomainError } from '@/lib/errors';

export type CreditMovement = {
  accountId: string;
  groupId: number;
  /** Positive to add credits, negative to take them. */
  amount: number;
  kind: LedgerKind;
  messageId?: string;
  transferId?: string;
  note?: string;
  /** Status of INSUFFICIENT_CREDITS: 402 when a send is refused, 400 for a transfer. */
  insufficientStatus?: 400 | 402;
};

/**
 * Why a guarded debit took nothing: the group is gone or another account's (404 GROUP_NOT_FOUND),
 * or its balance does not cover `required` (INSUFFICIENT_CREDITS: 402 for sends, 400 for transfers).
 */
export async function refusedDebitError(
  executor: Executor,
  debit: { accountId: string; groupId: number; required: number; status?: 400 | 402 },
): Promise<DomainError> {
  const { accountId, groupId, required } = debit;
  const [group] = await executor
    .select({ balance: phoneGroups.balance })
    .from(phoneGroups)
    .where(and(eq(phoneGroups.id, groupId), eq(phoneGroups.accountId, accountId)));
  if (!group) return new DomainError('GROUP_NOT_FOUND', `Phone group ${groupId} does not exist.`);
  return new DomainError(
    'INSUFFICIENT_CREDITS',
    `Group ${groupId} has ${group.balance} credit(s); ${required} needed.`,
    {
      status: debit.status ?? 402,
      extra: { balance: group.balance, required },
    },
  );
}

/**
 * The one way credits move: a guarded balance update and its ledger row, in the caller's
 * transaction. The `balance >= amount` guard and the table's CHECK keep every group at or above
 * zero under any concurrency (the update takes the group's row lock).
 */
export async function moveCredits(tx: Executor, movement: CreditMovement): Promise<{ balanceAfter: number }> {
  const { accountId, groupId, amount } = movement;
  if (!Number.isInteger(amount) || amount === 0) throw new Error(`moveCredits: bad amount ${amount}`);
  const [updated] = await tx
    .update(phoneGroups)
    .set({ balance: sql`${phoneGroups.balance} + ${amount}` })
    .where(
      and(
        eq(phoneGroups.id, groupId),
        eq(phoneGroups.accountId, accountId),
        amount < 0 ? gte(phoneGroups.balance, -amount) : undefined,
      ),
    )
    .returning({ balance: phoneGroups.balance });
  if (!updated) {
    throw await refusedDebitError(tx, { accountId, groupId, required: -amount, status: movement.insufficientStatus });
  }
  await tx.insert(creditLedger).values({
    accountId,
    groupId,
    kind: movement.kind,
    amount,
    balanceAfter: updated.balance,
    messageId: movement.messageId,
    transferId: movement.transferId,
    note: movement.note,
  });
  return { balanceAfter: updated.balance };
}
