import { and, desc, eq, gte, lt } from 'drizzle-orm';
import type { Executor } from '@/db';
import { messageStatusHistory, messages } from '@/db/schema';

export type { HistoryStatus } from '@/db/schema';

/**
 * The states the account's messages entered in [from, to), newest first, at most `limit`, each with
 * its message's direction and phone.
 */
export async function historyInRange(
  executor: Executor,
  accountId: string,
  range: { from: Date; to: Date; limit: number },
) {
  return executor
    .select({
      id: messageStatusHistory.id,
      status: messageStatusHistory.status,
      error: messageStatusHistory.error,
      at: messageStatusHistory.at,
      messageId: messageStatusHistory.messageId,
      direction: messages.direction,
      phoneId: messages.phoneId,
    })
    .from(messageStatusHistory)
    .innerJoin(
      messages,
      and(eq(messages.accountId, messageStatusHistory.accountId), eq(messages.id, messageStatusHistory.messageId)),
    )
    .where(
      and(
        eq(messageStatusHistory.accountId, accountId),
        gte(messageStatusHistory.at, range.from),
        lt(messageStatusHistory.at, range.to),
      ),
    )
    .orderBy(desc(messageStatusHistory.at), desc(messageStatusHistory.id))
    .limit(range.limit);
}
