import { and, eq, type SQL, sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import { type LedgerKind, phoneGroups } from '@/db/schema';
import { DomainError, type ErrorOperation } from '@/lib/errors';
import { creditsMoved } from '@/lib/metrics/record';

export type CreditMovement = {
  accountId: string;
  groupId: number;
  /** Positive to add credits, negative to take them. */
  amount: number;
  kind: LedgerKind;
  messageId?: string;
  transferId?: string;
  note?: string;
};

/** A refused debit of these kinds is that operation's refusal (its status is the catalogue's). */
const REFUSED_OPERATION: Partial<Record<LedgerKind, ErrorOperation>> = {
  message_charge: 'send',
  transfer_out: 'transfer',
};

/**
 * The call of `simgate_move_credits` (migration 0004), the one definition of how credits move: a
 * balance update guarded so that no group goes below zero, and its ledger rows, `amount` each, one
 * per message id (or one without). It yields the balance after the movement, or NULL when nothing
 * moved. A SQL expression, so that the one-statement send can call it from a CTE; `groupId` may be
 * a column of that statement.
 */
export function creditMovementCall(movement: {
  /** An account id, or an expression for one (a column of a batched statement). */
  accountId: string | SQL;
  groupId: number | SQL;
  amount: number;
  kind: LedgerKind;
  /** Message ids, or an expression for a uuid[] of them. */
  messageIds?: string[] | SQL;
  transferId?: string;
  note?: string;
}): SQL {
  const { amount, messageIds } = movement;
  if (!Number.isInteger(amount) || amount === 0) throw new Error(`creditMovementCall: bad amount ${amount}`);
  if (Array.isArray(messageIds) && messageIds.length === 0)
    throw new Error('creditMovementCall: an empty list of messages');
  // One array parameter whatever N is (uuids need no quoting in an array literal).
  const ids = messageIds === undefined ? null : Array.isArray(messageIds) ? `{${messageIds.join(',')}}` : messageIds;
  return sql`simgate_move_credits((${movement.accountId})::uuid, (${movement.groupId})::integer, ${amount}::integer,
    ${movement.kind}::text, (${ids})::uuid[], ${movement.transferId ?? null}::uuid, ${movement.note ?? null}::text)`;
}

/**
 * Why a movement took nothing: the group is gone or another account's (GROUP_NOT_FOUND), or its
 * balance does not cover `required` (INSUFFICIENT_CREDITS, raised by `operation`).
 */
export async function refusedDebitError(
  executor: Executor,
  debit: { accountId: string; groupId: number; required: number; operation?: ErrorOperation },
): Promise<DomainError> {
  const { accountId, groupId, required } = debit;
  const [group] = await executor
    .select({ balance: phoneGroups.balance, name: phoneGroups.name })
    .from(phoneGroups)
    .where(and(eq(phoneGroups.id, groupId), eq(phoneGroups.accountId, accountId)));
  if (!group) return new DomainError('GROUP_NOT_FOUND', `Phone group ${groupId} does not exist.`);
  return new DomainError(
    'INSUFFICIENT_CREDITS',
    `Group “${group.name}” (${groupId}) has ${group.balance} credit(s); ${required} needed.`,
    { operation: debit.operation, extra: { group_id: groupId, balance: group.balance, required } },
  );
}

async function runMovement(
  tx: Executor,
  movement: Parameters<typeof creditMovementCall>[0] & { accountId: string; groupId: number; messageIds?: string[] },
): Promise<{ balanceAfter: number }> {
  const [moved] = await queryRows<{ balance_after: number | null }>(
    tx,
    sql`select ${creditMovementCall(movement)} as balance_after`,
  );
  if (moved?.balance_after === null || moved?.balance_after === undefined) {
    const { accountId, groupId, amount, kind } = movement;
    const required = -amount * (movement.messageIds?.length ?? 1);
    throw await refusedDebitError(tx, { accountId, groupId, required, operation: REFUSED_OPERATION[kind] });
  }
  creditsMoved(tx, movement.kind, Math.abs(movement.amount) * (movement.messageIds?.length ?? 1));
  return { balanceAfter: Number(moved.balance_after) };
}

/**
 * Moves credits in the caller's transaction: one ledger row and the guarded balance update. Under
 * any concurrency no group goes below zero (the update takes the group's row lock).
 */
export function moveCredits(tx: Executor, movement: CreditMovement): Promise<{ balanceAfter: number }> {
  const { messageId, ...rest } = movement;
  return runMovement(tx, { ...rest, messageIds: messageId ? [messageId] : undefined });
}

/**
 * One credit per message, all or nothing: if the group cannot cover every message, nothing moves
 * and INSUFFICIENT_CREDITS is thrown. Run it in the transaction that inserts the messages.
 */
export function chargeMessages(
  tx: Executor,
  charge: { accountId: string; groupId: number; messageIds: string[] },
): Promise<{ balanceAfter: number }> {
  return runMovement(tx, { ...charge, amount: -1, kind: 'message_charge' });
}
