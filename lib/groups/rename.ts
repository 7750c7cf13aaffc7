import { and, eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { phoneGroups } from '@/db/schema';
import { validationError } from '@/lib/errors';
import { isUniqueViolation, withTransaction } from '@/lib/transactions';
import { defaultGroupLocked, duplicateName, groupNameOf } from './names';
import type { GroupView } from './present';
import { getGroup } from './read';
import { updateGroupSending } from './sending';

export type RenameGroupInput = {
  name?: string;
  isDefault?: boolean;
  sending?: Parameters<typeof updateGroupSending>[3];
};

/** Renames a group. The default group is locked, and so is making another group the default. */
export async function renameGroup(
  executor: Executor,
  accountId: string,
  groupId: number,
  input: RenameGroupInput,
): Promise<GroupView> {
  return withTransaction(executor, async (tx) => {
    const group = await getGroup(tx, accountId, groupId);
    if (group.isDefault) throw defaultGroupLocked('The default group cannot be renamed.');
    if (input.isDefault) throw defaultGroupLocked('An account has exactly one default group; another cannot be made.');
    if (input.sending !== undefined) await updateGroupSending(tx, accountId, groupId, input.sending);
    if (input.name === undefined) {
      if (input.sending !== undefined) return getGroup(tx, accountId, groupId);
      throw validationError('name', 'required');
    }
    const { name, nameKey } = groupNameOf(input.name);
    try {
      await tx.transaction((savepoint) =>
        savepoint
          .update(phoneGroups)
          .set({ name, nameKey })
          .where(and(eq(phoneGroups.accountId, accountId), eq(phoneGroups.id, groupId))),
      );
    } catch (error) {
      if (isUniqueViolation(error, 'phone_groups_account_name_key')) throw duplicateName(name);
      throw error;
    }
    return getGroup(tx, accountId, groupId);
  });
}
