import { and, eq, gte, type SQL } from 'drizzle-orm';
import type { Executor } from '@/db';
import { heartbeats } from '@/db/schema';
import { keysetPage, type Page, type PageQuery, toPage } from '@/lib/pagination';
import { getPhone } from '@/lib/phones/read';
import { iso } from '@/lib/wire';
import type { HeartbeatEntryWire, HeartbeatStatus } from './schemas';

export type HeartbeatHistoryQuery = PageQuery & { since?: Date };

/** A phone's heartbeats, newest first, for charts of status and battery over time. */
export async function listHeartbeats(
  executor: Executor,
  accountId: string,
  phoneId: string,
  query: HeartbeatHistoryQuery,
): Promise<Page<HeartbeatEntryWire>> {
  await getPhone(executor, accountId, phoneId);
  const keyset = keysetPage(query, { createdAt: heartbeats.createdAt, id: heartbeats.id, idType: 'bigint' });
  const conditions: SQL[] = [eq(heartbeats.accountId, accountId), eq(heartbeats.phoneId, phoneId)];
  if (query.since) conditions.push(gte(heartbeats.createdAt, query.since));
  const rows = await executor
    .select()
    .from(heartbeats)
    .where(and(...conditions, keyset.after))
    .orderBy(...keyset.orderBy)
    .limit(keyset.limit);
  return toPage(rows, query.limit, (row) => ({
    status: row.status as HeartbeatStatus,
    battery: row.battery,
    at: iso(row.createdAt) as string,
  }));
}
