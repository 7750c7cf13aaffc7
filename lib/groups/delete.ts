import { randomUUID } from 'node:crypto';
import { and, asc, eq, inArray, or } from 'drizzle-orm';
import type { Executor } from '@/db';
import { messages, phoneGroups, phones } from '@/db/schema';
import { moveCredits } from '@/lib/credits/ledger';
import { groupNotFound } from '@/lib/ids/groups';
import { withTransaction } from '@/lib/transactions';
import { defaultGroupLocked } from './names';

/**
 * Deletes a group, merging it into the default group in one transaction: its phones move there,
 * its credits move there (a group_merge_out / group_merge_in pair sharing a transfer id), and
 * refunds of its pending messages will land there.
 */
export async function deleteGroup(executor: Executor, accountId: string, groupId: number): Promise<void> {
  await withTransaction(executor, async (tx) => {
    // The lock order of lib/phones/delete.ts: the group's phones, then its in-flight messages, then
    // the group rows (in id order, as transfers take them), so a phone deletion or an expiry sweep
    // refunding into this group cannot wait on it in a cycle.
    await tx
      .select({ id: phones.id })
      .from(phones)
      .where(and(eq(phones.accountId, accountId), eq(phones.groupId, groupId)))
      .orderBy(asc(phones.id))
      .for('no key update');
    await tx
      .select({ id: messages.id })
      .from(messages)
      .where(
        and(
          eq(messages.accountId, accountId),
          eq(messages.groupId, groupId),
          inArray(messages.direction, ['outbound']),
        ),
      )
      .orderBy(asc(messages.id))
      .for('update');
    const locked = await tx
      .select({ id: phoneGroups.id, isDefault: phoneGroups.isDefault, balance: phoneGroups.balance })
      .from(phoneGroups)
      .where(
        and(eq(phoneGroups.accountId, accountId), or(eq(phoneGroups.id, groupId), eq(phoneGroups.isDefault, true))),
      )
      .orderBy(asc(phoneGroups.id))
      .for('update');
    const group = locked.find((row) => row.id === groupId);
    const defaultGroup = locked.find((row) => row.isDefault);
    if (!group) throw groupNotFound(groupId);
    if (group.isDefault) throw defaultGroupLocked('The default group cannot be deleted.');
    if (!defaultGroup) throw new Error(`deleteGroup: account ${accountId} has no default group`);

    await tx
      .update(phones)
      .set({ groupId: defaultGroup.id })
      .where(and(eq(phones.accountId, accountId), eq(phones.groupId, groupId)));
    if (group.balance > 0) {
      const transferId = randomUUID();
      const note = `Group ${groupId} deleted`;
      await moveCredits(tx, {
        accountId,
        groupId,
        amount: -group.balance,
        kind: 'group_merge_out',
        transferId,
        note,
      });
      await moveCredits(tx, {
        accountId,
        groupId: defaultGroup.id,
        amount: group.balance,
        kind: 'group_merge_in',
        transferId,
        note,
      });
    }
    await tx
      .update(messages)
      .set({ groupId: defaultGroup.id })
      .where(
        and(
          eq(messages.accountId, accountId),
          eq(messages.groupId, groupId),
          inArray(messages.direction, ['outbound']),
        ),
      );
    await tx.delete(phoneGroups).where(and(eq(phoneGroups.accountId, accountId), eq(phoneGroups.id, groupId)));
  });
}
