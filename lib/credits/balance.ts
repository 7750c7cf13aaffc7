import { and, asc, eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { phoneGroups } from '@/db/schema';
import { groupNotFound } from '@/lib/ids/groups';
import type { BalancesWire, GroupBalanceWire } from './schemas';

const balanceColumns = { group_id: phoneGroups.id, name: phoneGroups.name, balance: phoneGroups.balance };

/** Every group's balance (default group first, then by creation) and their total. */
export async function getBalances(executor: Executor, accountId: string): Promise<BalancesWire> {
  const data = await executor
    .select(balanceColumns)
    .from(phoneGroups)
    .where(eq(phoneGroups.accountId, accountId))
    .orderBy(asc(phoneGroups.id));
  return { data, total: data.reduce((sum, group) => sum + group.balance, 0) };
}

/** One group's balance, or 404 GROUP_NOT_FOUND (also for another account's group). */
export async function getGroupBalance(
  executor: Executor,
  accountId: string,
  groupId: number,
): Promise<GroupBalanceWire> {
  const [group] = await executor
    .select(balanceColumns)
    .from(phoneGroups)
    .where(and(eq(phoneGroups.accountId, accountId), eq(phoneGroups.id, groupId)));
  if (!group) throw groupNotFound(groupId);
  return group;
}
