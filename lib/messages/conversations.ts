import { and, eq, ne, or, type SQL, sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import { messages } from '@/db/schema';
import { contactsByNumber } from '@/lib/contacts/names';
import type { ContactRef } from '@/lib/contacts/schemas';
import { decodeCursor, encodeCursor, keysetPage, type Page, type PageQuery, toPage } from '@/lib/pagination';
import { type MessageWire, messageColumns, messageRowOf, presentMessage } from './present';

export type ConversationWire = {
  number: string;
  contact: ContactRef | null;
  message_count: number;
  last_message: MessageWire;
};

/** The other party of a message: the recipient of an outbound one, the sender of an inbound one. */
const counterpart = (alias: string) =>
  sql`case when ${sql.identifier(alias)}.direction = 'outbound' then ${sql.identifier(alias)}."to" else ${sql.identifier(alias)}."from" end`;

/**
 * The numbers the account has exchanged messages with, the most recently active first, each with
 * its message count and newest message; keyset-paginated on (last message's created_at, number).
 * It groups the account's messages: one pass over them per page. SIM checks (a phone texting itself
 * or another of the account's phones) are no conversation.
 */
export async function listConversations(
  executor: Executor,
  accountId: string,
  query: PageQuery,
): Promise<Page<ConversationWire>> {
  const cursor = decodeCursor(query.cursor);
  const after = cursor
    ? sql`where (last_at, number) < (${cursor.createdAt.toISOString()}::timestamptz, ${cursor.id})`
    : sql``;
  const rows = await queryRows<Record<string, unknown> & { number: string; message_count: number }>(
    executor,
    sql`with threads as (
      select ${counterpart('m')} as number, count(*)::int as message_count, max(m.created_at) as last_at
      from messages m where m.account_id = ${accountId} and m.kind <> 'sim_check' group by 1
    ), page as (
      select number, message_count, last_at from threads ${after} order by last_at desc, number desc limit ${query.limit + 1}
    )
    select page.number, page.message_count, ${messageColumns('last')}
    from page cross join lateral (
      select * from messages m
      where m.account_id = ${accountId} and m.created_at = page.last_at and ${counterpart('m')} = page.number
        and m.kind <> 'sim_check'
      order by m.id desc limit 1
    ) last
    order by page.last_at desc, page.number desc`,
  );
  const conversations = rows.map((raw) => ({ raw, message: messageRowOf(raw) }));
  const more = conversations.length > query.limit;
  const page = more ? conversations.slice(0, query.limit) : conversations;
  const last = page[page.length - 1];
  const contacts = await contactsByNumber(
    executor,
    accountId,
    page.map(({ raw }) => raw.number),
  );
  return {
    data: page.map(({ raw, message }) => {
      const contact = contacts.get(raw.number) ?? null;
      return {
        number: raw.number,
        contact,
        message_count: Number(raw.message_count),
        last_message: { ...presentMessage(message), contact },
      };
    }),
    next_cursor: more && last ? encodeCursor({ createdAt: last.message.createdAt, id: last.raw.number }) : null,
  };
}

/** Every message exchanged with `number`, both directions, newest first (messages_account_to_idx, …_from_idx). */
export async function getConversation(
  executor: Executor,
  accountId: string,
  number: string,
  query: PageQuery,
): Promise<Page<MessageWire>> {
  const keyset = keysetPage(query, { createdAt: messages.createdAt, id: messages.id, idType: 'uuid' });
  const withNumber = or(
    and(eq(messages.direction, 'outbound'), eq(messages.to, number)),
    and(eq(messages.direction, 'inbound'), eq(messages.from, number)),
  ) as SQL;
  const rows = await executor
    .select()
    .from(messages)
    .where(and(eq(messages.accountId, accountId), withNumber, ne(messages.kind, 'sim_check'), keyset.after))
    .orderBy(...keyset.orderBy)
    .limit(keyset.limit);
  const contact = (await contactsByNumber(executor, accountId, [number])).get(number) ?? null;
  return toPage(rows, query.limit, (row) => ({ ...presentMessage(row), contact }));
}
