import { and, count, eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { phoneGroups } from '@/db/schema';
import { assertBelowPlanLimit, lockAccountPlan } from '@/lib/billing-plans/limits';
import { isUniqueViolation, withTransaction } from '@/lib/transactions';
import { defaultGroupLocked, duplicateName, groupNameOf } from './names';
import type { GroupView } from './present';
import { getGroup } from './read';

export type CreateGroupInput = { name: string; isDefault?: boolean };

/**
 * Creates a phone group. The account row lock makes the plan check race-free (the default group
 * counts); the unique index on (account, name_key) is what finally refuses a duplicate name.
 */
export async function createGroup(executor: Executor, accountId: string, input: CreateGroupInput): Promise<GroupView> {
  if (input.isDefault) throw defaultGroupLocked('An account has exactly one default group; another cannot be made.');
  const { name, nameKey } = groupNameOf(input.name);
  return withTransaction(executor, async (tx) => {
    const plan = await lockAccountPlan(tx, accountId);
    const [existing] = await tx
      .select({ id: phoneGroups.id })
      .from(phoneGroups)
      .where(and(eq(phoneGroups.accountId, accountId), eq(phoneGroups.nameKey, nameKey)));
    if (existing) throw duplicateName(name);
    const [counted] = await tx.select({ value: count() }).from(phoneGroups).where(eq(phoneGroups.accountId, accountId));
    assertBelowPlanLimit(plan, 'groups', counted?.value ?? 0);
    try {
      // A savepoint, so a duplicate refused by the index leaves the caller's transaction usable.
      const created = await tx.transaction(async (savepoint) => {
        const [row] = await savepoint
          .insert(phoneGroups)
          .values({ accountId, name, nameKey })
          .returning({ id: phoneGroups.id });
        if (!row) throw new Error('createGroup: insert returned no row');
        return row;
      });
      return getGroup(tx, accountId, created.id);
    } catch (error) {
      if (isUniqueViolation(error, 'phone_groups_account_name_key')) throw duplicateName(name);
      throw error;
    }
  });
}
