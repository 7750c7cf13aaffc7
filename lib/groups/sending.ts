import { and, eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { phoneGroups, type SendingOverrides } from '@/db/schema';
import { recordAudit } from '@/lib/audit/record';
import { withTransaction } from '@/lib/transactions';
import { defaultGroupLocked } from './names';
import { getGroup } from './read';

export type OverrideChange = { [K in keyof SendingOverrides]?: SendingOverrides[K] | 'inherit' };

/** Sets or drops a group's overrides; the default group is the account's own settings, so it is locked. */
export async function updateGroupSending(
  executor: Executor,
  accountId: string,
  groupId: number,
  change: OverrideChange,
): Promise<void> {
  await withTransaction(executor, async (tx) => {
    const group = await getGroup(tx, accountId, groupId);
    if (group.isDefault) {
      throw defaultGroupLocked(
        'The default group uses the account’s sending settings: change them in /api/v1/settings/sending.',
      );
    }
    const [current] = await tx
      .select({ overrides: phoneGroups.sendingOverrides })
      .from(phoneGroups)
      .where(and(eq(phoneGroups.accountId, accountId), eq(phoneGroups.id, groupId)))
      .for('update');
    const next: Record<string, unknown> = { ...(current?.overrides ?? {}) };
    for (const [key, value] of Object.entries(change)) {
      if (value === undefined) continue;
      if (value === 'inherit') delete next[key];
      else next[key] = value;
    }
    await tx
      .update(phoneGroups)
      .set({ sendingOverrides: next as SendingOverrides })
      .where(and(eq(phoneGroups.accountId, accountId), eq(phoneGroups.id, groupId)));
    const changed = Object.fromEntries(Object.entries(change).filter(([, value]) => value !== undefined));
    if (Object.keys(changed).length > 0) {
      await recordAudit(tx, { accountId, action: 'sending_settings.updated', target: groupId, details: changed });
    }
  });
}
