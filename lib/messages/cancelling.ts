import { and, asc, eq, gt, notInArray, type SQL } from 'drizzle-orm';
import type { Executor } from '@/db';
import { messages } from '@/db/schema';
import type { MessageRow } from './present';

/** A phone as its account's: the statements on its messages name both. */
export type AccountPhone = { id: string; accountId: string };

/** The phone's messages asked to be cancelled while it holds them, and not yet answered for. */
export function awaitingCancelOn(phone: AccountPhone): SQL | undefined {
  return and(
    eq(messages.accountId, phone.accountId),
    eq(messages.phoneId, phone.id),
    eq(messages.direction, 'outbound'),
    eq(messages.status, 'cancelling'),
  );
}

/**
 * The messages the phone must be told to drop (`cancelling`), oldest request first: every surface
 * tells its phone from here (the SMSGate app's pull and its `MessageCancelled` events, the device
 * API's claim answer). With `since`, only those asked after it.
 */
export async function awaitingCancel(
  executor: Executor,
  phone: AccountPhone,
  options: { limit?: number; since?: Date; notIn?: string[] } = {},
): Promise<MessageRow[]> {
  const query = executor
    .select()
    .from(messages)
    .where(
      and(
        awaitingCancelOn(phone),
        options.since ? gt(messages.updatedAt, options.since) : undefined,
        options.notIn && options.notIn.length > 0 ? notInArray(messages.id, options.notIn) : undefined,
      ),
    )
    .orderBy(asc(messages.updatedAt));
  return options.limit === undefined ? query : query.limit(options.limit);
}
