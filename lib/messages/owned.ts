import { and, eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { type MESSAGE_DIRECTIONS, messages } from '@/db/schema';
import { notFound } from '@/lib/errors';
import type { MessageRow } from './present';

/**
 * A message of the account (of one direction, when given), or 404 NOT_FOUND, also for another
 * account's message: the one way every area finds "this account's message".
 */
export async function ownedMessage(
  executor: Executor,
  accountId: string,
  messageId: string,
  options: { direction?: (typeof MESSAGE_DIRECTIONS)[number] } = {},
): Promise<MessageRow> {
  const [message] = await executor
    .select()
    .from(messages)
    .where(
      and(
        eq(messages.id, messageId),
        eq(messages.accountId, accountId),
        options.direction ? eq(messages.direction, options.direction) : undefined,
      ),
    );
  if (!message) throw notFound('Message');
  return message;
}
