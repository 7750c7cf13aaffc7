import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { bulkMessages, messageStatusHistory, messages, phoneGroups, phones } from '@/db/schema';
import { notFound } from '@/lib/errors';
import { iso } from '@/lib/wire';
import { estimateBulkCompletion } from './estimate';

/**
 * The statuses of bulk `bulkId`'s messages (of account `accountId`) as a subquery of one column,
 * `status`, a row per message; `mapStatus` turns messages.status into the caller's terms (a
 * protocol's state names).
 */
export function bulkStatusesSql(
  accountId: SQL,
  bulkId: SQL,
  mapStatus: (status: SQL) => SQL = (status) => status,
): SQL {
  return sql`select ${mapStatus(sql`m.status`)} as status from messages m
    where m.account_id = ${accountId} and m.bulk_id = ${bulkId}`;
}

/** The current status (with error and content) and the status history of each of these messages. */
export async function statusesOf(executor: Executor, accountId: string, messageIds: string[]) {
  const current =
    messageIds.length === 0
      ? []
      : await executor
          .select({
            id: messages.id,
            status: messages.status,
            error: messages.error,
            content: messages.content,
            encrypted: messages.encrypted,
          })
          .from(messages)
          .where(and(eq(messages.accountId, accountId), inArray(messages.id, messageIds)));
  const history =
    messageIds.length === 0
      ? []
      : await executor
          .select({
            messageId: messageStatusHistory.messageId,
            status: messageStatusHistory.status,
            at: messageStatusHistory.at,
          })
          .from(messageStatusHistory)
          .where(
            and(eq(messageStatusHistory.accountId, accountId), inArray(messageStatusHistory.messageId, messageIds)),
          );
  return { current, history };
}

/** The phone message `messageId` was assigned to, if any. */
export async function phoneOfMessage(executor: Executor, accountId: string, messageId: string): Promise<string | null> {
  const [message] = await executor
    .select({ phoneId: messages.phoneId })
    .from(messages)
    .where(and(eq(messages.accountId, accountId), eq(messages.id, messageId)));
  return message?.phoneId ?? null;
}

/**
 * Who sends a bulk: the account's phone `phoneId` (undefined when the account has no such phone),
 * or, with no phone named, the account's default group to choose one.
 */
export async function bulkSender(
  executor: Executor,
  accountId: string,
  phoneId: string | null | undefined,
): Promise<{ from: string } | { fromGroup: number } | undefined> {
  if (phoneId) {
    const [phone] = await executor
      .select({ phone: phones.phone })
      .from(phones)
      .where(and(eq(phones.accountId, accountId), sql`${phones.id}::text = ${phoneId}::text`));
    return phone ? { from: phone.phone } : undefined;
  }
  const [group] = await executor
    .select({ id: phoneGroups.id })
    .from(phoneGroups)
    .where(and(eq(phoneGroups.accountId, accountId), sql`${phoneGroups.isDefault}`));
  if (!group) throw new Error(`account ${accountId} has no default group`);
  return { fromGroup: group.id };
}

const COUNTED = ['queued', 'dispatched', 'sent', 'delivered', 'failed', 'expired', 'cancelled'] as const;

export async function getBulk(executor: Executor, accountId: string, bulkId: string) {
  const [bulk] = await executor
    .select({
      id: bulkMessages.id,
      from: phones.phone,
      fromGroup: bulkMessages.fromGroup,
      count: bulkMessages.recipientCount,
      createdAt: bulkMessages.createdAt,
    })
    .from(bulkMessages)
    .leftJoin(phones, and(eq(phones.accountId, bulkMessages.accountId), eq(phones.id, bulkMessages.phoneId)))
    .where(and(eq(bulkMessages.id, bulkId), eq(bulkMessages.accountId, accountId)));
  if (!bulk) throw notFound('Bulk message');
  const rows = await executor
    .select({ status: messages.status, count: sql<number>`count(*)::int` })
    .from(messages)
    .where(and(eq(messages.bulkId, bulkId), eq(messages.accountId, accountId)))
    .groupBy(messages.status);
  const counts = Object.fromEntries(COUNTED.map((status) => [status, 0])) as Record<(typeof COUNTED)[number], number>;
  for (const row of rows) {
    // A message the phone was asked to drop is still on the phone until it answers.
    const status = row.status === 'cancelling' ? 'dispatched' : row.status;
    if (status in counts) counts[status as keyof typeof counts] += Number(row.count);
  }
  const estimated = await estimateBulkCompletion(executor, accountId, bulkId);
  return {
    id: bulk.id,
    from: bulk.from,
    from_group: bulk.fromGroup,
    count: bulk.count,
    created_at: iso(bulk.createdAt),
    counts,
    estimated_completion_at: estimated ? estimated.toISOString() : null,
  };
}
