import { and, eq, inArray, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { messageStatusHistory, messages, phoneGroups, phones } from '@/db/schema';

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
