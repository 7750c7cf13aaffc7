import { and, eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { phoneGroups } from '@/db/schema';
import { OPERATOR } from '@/lib/audit/actor';
import { recordAudit } from '@/lib/audit/record';
import { moveCredits } from '@/lib/credits/ledger';
import { MAX_GROUP_BALANCE, MAX_TRANSFER_AMOUNT } from '@/lib/credits/schemas';
import { validationError } from '@/lib/errors';
import { groupNotFound } from '@/lib/ids/groups';
import { withTransaction } from '@/lib/transactions';

const MAX_GROUP_ID = 2_147_483_647;
const MAX_NOTE_LENGTH = 500;

export type GrantInput = { groupId: number; amount: number; note?: string };

/** Grants credits to a group of any account, as an operator_grant row of the ledger. */
export async function grantCredits(executor: Executor, input: GrantInput) {
  const { groupId, amount, note } = input;
  if (!Number.isInteger(groupId) || groupId < 1 || groupId > MAX_GROUP_ID) {
    throw validationError('group', 'must be a group id (a positive whole number)');
  }
  if (!Number.isInteger(amount) || amount < 1 || amount > MAX_TRANSFER_AMOUNT) {
    throw validationError('amount', `must be a whole number from 1 to ${MAX_TRANSFER_AMOUNT.toLocaleString('en')}`);
  }
  if (note !== undefined && note.length > MAX_NOTE_LENGTH) {
    throw validationError('note', `must be at most ${MAX_NOTE_LENGTH} characters`);
  }
  return withTransaction(executor, async (tx) => {
    // The group's account first, without a lock (a group never changes account); then the row is
    // locked by its account and id, which picks one shard on a Citus database.
    const [owner] = await tx
      .select({ accountId: phoneGroups.accountId })
      .from(phoneGroups)
      .where(eq(phoneGroups.id, groupId));
    if (!owner) throw groupNotFound(groupId);
    const [group] = await tx
      .select({ accountId: phoneGroups.accountId, name: phoneGroups.name, balance: phoneGroups.balance })
      .from(phoneGroups)
      .where(and(eq(phoneGroups.accountId, owner.accountId), eq(phoneGroups.id, groupId)))
      .for('update');
    if (!group) throw groupNotFound(groupId);
    if (group.balance + amount > MAX_GROUP_BALANCE) {
      throw validationError('amount', `would take group ${groupId} past the largest balance, ${MAX_GROUP_BALANCE}`);
    }
    const { balanceAfter } = await moveCredits(tx, {
      accountId: group.accountId,
      groupId,
      amount,
      kind: 'operator_grant',
      note,
    });
    await recordAudit(tx, {
      accountId: group.accountId,
      action: 'credits.granted',
      target: groupId,
      details: { amount, balance_after: balanceAfter, ...(note ? { note } : {}) },
      actor: OPERATOR,
    });
    return { accountId: group.accountId, groupId, groupName: group.name, amount, balanceAfter };
  });
}
