import { and, eq, type SQL } from 'drizzle-orm';
import type { Executor } from '@/db';
import { phoneGroups } from '@/db/schema';
import { groupNotFound } from '@/lib/ids/groups';
import { keysetPage, type Page, type PageQuery, toPage } from '@/lib/pagination';
import { type GroupView, groupColumns, presentGroup } from './present';
import type { GroupWire } from './schemas';

/** A group of the account, or 404 GROUP_NOT_FOUND (also for another account's group). */
export async function getGroup(executor: Executor, accountId: string, groupId: number): Promise<GroupView> {
  const [group] = await executor
    .select(groupColumns)
    .from(phoneGroups)
    .where(and(eq(phoneGroups.accountId, accountId), eq(phoneGroups.id, groupId)));
  if (!group) throw groupNotFound(groupId);
  return group;
}

export async function listGroups(executor: Executor, accountId: string, query: PageQuery): Promise<Page<GroupWire>> {
  const keyset = keysetPage(query, { createdAt: phoneGroups.createdAt, id: phoneGroups.id, idType: 'integer' });
  const conditions: SQL[] = [eq(phoneGroups.accountId, accountId)];
  const rows = await executor
    .select(groupColumns)
    .from(phoneGroups)
    .where(and(...conditions, keyset.after))
    .orderBy(...keyset.orderBy)
    .limit(keyset.limit);
  return toPage(rows, query.limit, presentGroup);
}

/** The ids of the account's groups, in no particular order. */
export async function groupIdsOf(executor: Executor, accountId: string): Promise<number[]> {
  const groups = await executor
    .select({ id: phoneGroups.id })
    .from(phoneGroups)
    .where(eq(phoneGroups.accountId, accountId));
  return groups.map((group) => group.id);
}
