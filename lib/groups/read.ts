import { and, desc, eq, type SQL } from 'drizzle-orm';
import type { Executor } from '@/db';
import { phoneGroups } from '@/db/schema';
import { decodeCursor, olderThan, type Page, type PageQuery, toPage } from '@/lib/pagination';
import { groupNotFound } from './names';
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
  const cursor = decodeCursor(query.cursor);
  const conditions: SQL[] = [eq(phoneGroups.accountId, accountId)];
  if (cursor) conditions.push(olderThan(phoneGroups.createdAt, phoneGroups.id, cursor, 'integer'));
  const rows = await executor
    .select(groupColumns)
    .from(phoneGroups)
    .where(and(...conditions))
    .orderBy(desc(phoneGroups.createdAt), desc(phoneGroups.id))
    .limit(query.limit + 1);
  return toPage(rows, query.limit, presentGroup);
}
