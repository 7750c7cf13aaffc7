import { randomUUID } from 'node:crypto';
import { and, asc, eq, inArray } from 'drizzle-orm';
import type { Executor } from '@/db';
import { phoneGroups } from '@/db/schema';
import { recordAudit } from '@/lib/audit/record';
import { validationError } from '@/lib/errors';
import { groupNotFound } from '@/lib/ids/groups';
import { withTransaction } from '@/lib/transactions';
import { moveCredits } from './ledger';
import { MAX_GROUP_BALANCE, type TransferResultWire } from './schemas';

export type TransferInput = {
  /** The default group when absent. */
  fromGroup?: number;
  toGroup: number;
  amount: number;
};

/**
 * Moves credits between two groups of the account: a transfer_out and a transfer_in row sharing
 * a transfer id. Both group rows are locked lowest id first, the order every multi-group
 * operation uses, so concurrent transfers cannot deadlock; the guarded debit refuses an overdraft
 * with INSUFFICIENT_CREDITS (a transfer's refusal: see ERROR_CODES).
 */
export async function transferCredits(
  executor: Executor,
  accountId: string,
  input: TransferInput,
): Promise<TransferResultWire> {
  const { toGroup, amount } = input;
  if (input.fromGroup === toGroup) throw validationError('to_group', 'must differ from from_group');
  return withTransaction(executor, async (tx) => {
    const fromGroup = input.fromGroup ?? (await defaultGroupId(tx, accountId));
    if (fromGroup === toGroup) throw validationError('to_group', 'must differ from the default group (from_group)');
    const locked = await tx
      .select({ id: phoneGroups.id, balance: phoneGroups.balance })
      .from(phoneGroups)
      .where(and(eq(phoneGroups.accountId, accountId), inArray(phoneGroups.id, [fromGroup, toGroup])))
      .orderBy(asc(phoneGroups.id))
      .for('update');
    if (!locked.some((group) => group.id === fromGroup)) throw groupNotFound(fromGroup);
    const destination = locked.find((group) => group.id === toGroup);
    if (!destination) throw groupNotFound(toGroup);
    if (destination.balance + amount > MAX_GROUP_BALANCE) {
      throw validationError('amount', `would take group ${toGroup} past the largest balance, ${MAX_GROUP_BALANCE}`);
    }
    const transferId = randomUUID();
    const out = await moveCredits(tx, {
      accountId,
      groupId: fromGroup,
      amount: -amount,
      kind: 'transfer_out',
      transferId,
    });
    const into = await moveCredits(tx, { accountId, groupId: toGroup, amount, kind: 'transfer_in', transferId });
    await recordAudit(tx, {
      accountId,
      action: 'credits.transferred',
      target: transferId,
      details: { from_group: fromGroup, to_group: toGroup, amount },
    });
    return {
      transfer_id: transferId,
      from_group: { group_id: fromGroup, balance: out.balanceAfter },
      to_group: { group_id: toGroup, balance: into.balanceAfter },
      amount,
    };
  });
}

async function defaultGroupId(executor: Executor, accountId: string): Promise<number> {
  const [group] = await executor
    .select({ id: phoneGroups.id })
    .from(phoneGroups)
    .where(and(eq(phoneGroups.accountId, accountId), eq(phoneGroups.isDefault, true)));
  if (!group) throw new Error(`transferCredits: account ${accountId} has no default group`);
  return group.id;
}
