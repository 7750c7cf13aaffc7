import { and, desc, eq, gte, lt, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { type MessageKind, messages } from '@/db/schema';
import { iso } from '@/lib/wire';
import type { InboxQuery, IncomingMessageType, IncomingMessageWire } from './schemas';

/**
 * What each SMSGate type of received message is among Simgate's message kinds; a type with none lists
 * nothing. `MMS` lists every received MMS, those the app reported as `mms:downloaded` too (both are kind
 * `mms`), so `MMS_DOWNLOADED` has no kind of its own.
 */
const KIND_OF_TYPE: Partial<Record<IncomingMessageType, MessageKind>> = {
  SMS: 'message',
  DATA_SMS: 'data',
  MMS: 'mms',
};
const TYPE_OF_KIND = new Map(Object.entries(KIND_OF_TYPE).map(([type, kind]) => [kind, type as IncomingMessageType]));

/**
 * GET /inbox: the account's received messages (those GET /api/v1/messages?direction=inbound
 * lists), newest first, as SMSGate's `IncomingMessage`, with the total before paging.
 */
export async function listInbox(
  executor: Executor,
  accountId: string,
  query: InboxQuery,
): Promise<{ items: IncomingMessageWire[]; total: number }> {
  const kinds = query.type ? [KIND_OF_TYPE[query.type]] : [...TYPE_OF_KIND.keys()];
  if (kinds[0] === undefined) return { items: [], total: 0 };
  const filters: (SQL | undefined)[] = [
    eq(messages.accountId, accountId),
    eq(messages.direction, 'inbound'),
    sql`${messages.kind} in (${sql.join(
      kinds.map((kind) => sql`${kind}`),
      sql`, `,
    )})`,
    query.from ? gte(messages.createdAt, new Date(query.from)) : undefined,
    query.to ? lt(messages.createdAt, new Date(query.to)) : undefined,
    // Compared as text: an id that is not a phone of the account matches nothing.
    query.deviceId ? sql`${messages.phoneId}::text = ${query.deviceId}` : undefined,
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
  return {
    items: rows.map((row) => ({
      id: row.id,
      type: TYPE_OF_KIND.get(row.kind) ?? 'SMS',
      sender: row.from,
      ...(row.to ? { recipient: row.to } : {}),
      ...(row.sim ? { simNumber: row.sim } : {}),
      contentPreview: row.content,
      createdAt: iso(row.createdAt) ?? '',
    })),
    total: rows[0]?.total ?? 0,
  };
}
