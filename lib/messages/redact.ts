import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { messages } from '@/db/schema';
import type { MessageRow } from './present';

/**
 * Removes the content of the account's message (its row stays, with every other field), as an
 * API that redacts a message's body does; undefined when the account has no such message. The
 * caller decides which messages may be redacted.
 */
export async function redactMessageContent(
  executor: Executor,
  accountId: string,
  messageId: string,
): Promise<MessageRow | undefined> {
  const [updated] = await executor
    .update(messages)
    .set({ content: '', updatedAt: sql`now()` })
    .where(and(eq(messages.id, messageId), eq(messages.accountId, accountId)))
    .returning();
  return updated;
}
