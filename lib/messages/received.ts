import { and, desc, eq, gte, lt, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { type MessageKind, messages } from '@/db/schema';

export type { MessageKind } from '@/db/schema';

export type ReceivedQuery = {
  kinds: MessageKind[];
  from?: Date;
  to?: Date;
  /** A phone's id as another wire wrote it: compared as text, so one that is not a phone of the account matches nothing. */
  phoneId?: string;
  limit: number;
  offset: number;
};

/**
 * One page of the account's received messages of these kinds, newest first, by offset, with the
 * total before paging.
 */
export async function receivedMessagesPage(executor: Executor, accountId: string, query: ReceivedQuery) {
  const filters: (SQL | undefined)[] = [
    eq(messages.accountId, accountId),
    eq(messages.direction, 'inbound'),
    sql`${messages.kind} in (${sql.join(
      query.kinds.map((kind) => sql`${kind}`),
      sql`, `,
    )})`,
    query.from ? gte(messages.createdAt, query.from) : undefined,
    query.to ? lt(messages.createdAt, query.to) : undefined,
    query.phoneId ? sql`${messages.phoneId}::text = ${query.phoneId}` : undefined,
  ];
  const rows = await executor
    .select({
      id: messages.id,
      kind: messages.kind,
      from: messages.from,
      to: messages.to,
      sim: messages.sim,
      content: messages.content,
      createdAt: messages.createdAt,
      total: sql<number>`count(*) over ()`.mapWith(Number),
    })
    .from(messages)
    .where(and(...filters))
    .orderBy(desc(messages.createdAt), desc(messages.id))
    .limit(query.limit)
    .offset(query.offset);
  return { rows, total: rows[0]?.total ?? 0 };
}
