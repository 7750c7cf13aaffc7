import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { bulkMessages, messages } from '@/db/schema';
import { DomainError, notFound } from '@/lib/errors';
import { withTransaction } from '@/lib/transactions';
import { ownedMessage } from './owned';
import { type MessageWire, presentMessage } from './present';
import { afterTransition, sourcesOf, transitionMessage } from './state-machine';

function notCancellable(id: string, status: string): DomainError {
  return new DomainError(
    'MESSAGE_NOT_CANCELLABLE',
    `Message ${id} is ${status}: only a queued message (scheduled or not) can be cancelled, before a phone is handed it.`,
    { extra: { current_status: status } },
  );
}

/**
 * Cancels a queued message: `cancelled`, refunded through the ledger, `message.cancelled`. The move
 * is the state machine's guarded UPDATE, so against a phone's claim exactly one wins: the message
 * ends handed out or cancelled, never both, and is refunded at most once. Cancelling a cancelled
 * message answers it again; one a phone already holds (or further) is 409 MESSAGE_NOT_CANCELLABLE.
 */
export async function cancelMessage(executor: Executor, accountId: string, messageId: string): Promise<MessageWire> {
  return withTransaction(executor, async (tx) => {
    const message = await ownedMessage(tx, accountId, messageId, { direction: 'outbound' });
    if (message.status === 'cancelled') return presentMessage(message);
    if (message.status !== 'queued') throw notCancellable(message.id, message.status);
    try {
      return presentMessage(await transitionMessage(tx, message, 'cancelled'));
    } catch (error) {
      // A claim took it between the read and the guarded update.
      if (error instanceof DomainError && error.code === 'INVALID_TRANSITION') {
        const current = (error.extra?.current_status as string | undefined) ?? 'dispatched';
        if (current === 'cancelled') return presentMessage({ ...message, status: 'cancelled' });
        throw notCancellable(message.id, current);
      }
      throw error;
    }
  });
}

export type BulkCancelled = { id: string; cancelled: number; not_cancellable: number };

/**
 * Cancels every message of the bulk that is still queued, in one guarded UPDATE (each refunded
 * once, each with its event); the others were already on a phone or done, and are counted.
 */
export async function cancelBulk(executor: Executor, accountId: string, bulkId: string): Promise<BulkCancelled> {
  return withTransaction(executor, async (tx) => {
    const [bulk] = await tx
      .select({ id: bulkMessages.id })
      .from(bulkMessages)
      .where(and(eq(bulkMessages.id, bulkId), eq(bulkMessages.accountId, accountId)));
    if (!bulk) throw notFound('Bulk message');
    const now = new Date();
    const cancelled = await tx
      .update(messages)
      .set({ status: 'cancelled', updatedAt: now })
      .where(
        and(
          eq(messages.bulkId, bulkId),
          eq(messages.accountId, accountId),
          inArray(messages.status, sourcesOf('cancelled')),
        ),
      )
      .returning();
    await afterTransition(tx, cancelled, { at: now });
    const [rest] = await tx
      .select({ count: sql<number>`count(*)::int` })
      .from(messages)
      .where(and(eq(messages.bulkId, bulkId), sql`${messages.status} <> 'cancelled'`));
    return { id: bulkId, cancelled: cancelled.length, not_cancellable: Number(rest?.count ?? 0) };
  });
}
