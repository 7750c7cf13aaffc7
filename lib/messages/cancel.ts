import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { bulkMessages, type MessageStatus, messages } from '@/db/schema';
import { DomainError, notFound } from '@/lib/errors';
import { notifyOutbox } from '@/lib/notify/outbox';
import { withTransaction } from '@/lib/transactions';
import { ownedMessage } from './owned';
import { type MessageRow, type MessageWire, presentMessage } from './present';
import { afterTransition, sourcesOf, transitionMessage } from './state-machine';

function notCancellable(id: string, status: string): DomainError {
  return new DomainError(
    'MESSAGE_NOT_CANCELLABLE',
    `Message ${id} is ${status}: only a message not sent yet (queued, scheduled, or held by a phone) can be cancelled.`,
    { extra: { current_status: status } },
  );
}

/** What a cancel asks of a message in each state: `cancelled` at once, or `cancelling` while a phone holds it. */
const CANCEL_TO: Partial<Record<MessageStatus, MessageStatus>> = { queued: 'cancelled', dispatched: 'cancelling' };

/**
 * Cancels an outbound message not sent yet. A queued one (scheduled or not) becomes `cancelled` at
 * once: refunded through the ledger, `message.cancelled`. One a phone holds (`dispatched`) becomes
 * `cancelling` (`message.cancelling`) and its phone is woken to learn it (lib/messages/cancelling.ts):
 * the phone's confirmation makes it `cancelled` and refunded, a `sent` it reports instead wins, and
 * a phone that answers neither lets it expire. Each move is the state machine's guarded UPDATE, so
 * against a claim or a phone's report exactly one wins; when the message moved meanwhile the cancel
 * looks again. Cancelling a cancelled or cancelling message answers it again; one already sent (or
 * further) is 409 MESSAGE_NOT_CANCELLABLE.
 */
export async function cancelMessage(executor: Executor, accountId: string, messageId: string): Promise<MessageWire> {
  return withTransaction(executor, async (tx) => {
    let message = await ownedMessage(tx, accountId, messageId, { direction: 'outbound' });
    // Two tries: a claim (queued → dispatched) may take the message between the read and the move.
    for (let attempt = 0; ; attempt++) {
      if (message.status === 'cancelled' || message.status === 'cancelling') return presentMessage(message);
      const to = CANCEL_TO[message.status];
      if (!to) throw notCancellable(message.id, message.status);
      try {
        const moved = await transitionMessage(tx, message, to);
        if (to === 'cancelling') await notifyOutbox(tx, moved.phoneId);
        return presentMessage(moved);
      } catch (error) {
        if (!(error instanceof DomainError && error.code === 'INVALID_TRANSITION') || attempt > 0) throw error;
        message = await ownedMessage(tx, accountId, messageId, { direction: 'outbound' });
      }
    }
  });
}

export type BulkCancelled = { id: string; cancelled: number; cancelling: number; not_cancellable: number };

/**
 * Cancels every message of the bulk not sent yet, in two guarded UPDATEs: the queued ones become
 * `cancelled` (each refunded once, each with its event), those on a phone `cancelling` (their
 * phones woken to learn it). The others were sent or done, and are counted.
 */
export async function cancelBulk(executor: Executor, accountId: string, bulkId: string): Promise<BulkCancelled> {
  return withTransaction(executor, async (tx) => {
    const [bulk] = await tx
      .select({ id: bulkMessages.id })
      .from(bulkMessages)
      .where(and(eq(bulkMessages.id, bulkId), eq(bulkMessages.accountId, accountId)));
    if (!bulk) throw notFound('Bulk message');
    const now = new Date();
    const move = async (to: MessageStatus, from: MessageStatus): Promise<MessageRow[]> => {
      const moved = await tx
        .update(messages)
        .set({ status: to, updatedAt: now })
        .where(
          and(
            eq(messages.bulkId, bulkId),
            eq(messages.accountId, accountId),
            eq(messages.status, from),
            inArray(messages.status, sourcesOf(to)),
          ),
        )
        .returning();
      await afterTransition(tx, moved, { at: now });
      return moved;
    };
    const cancelled = await move('cancelled', 'queued');
    const cancelling = await move('cancelling', 'dispatched');
    for (const phoneId of new Set(cancelling.map((row) => row.phoneId))) await notifyOutbox(tx, phoneId);
    const [rest] = await tx
      .select({ count: sql<number>`count(*)::int` })
      .from(messages)
      .where(
        and(
          eq(messages.accountId, accountId),
          eq(messages.bulkId, bulkId),
          sql`${messages.status} not in ('cancelled', 'cancelling')`,
        ),
      );
    return {
      id: bulkId,
      cancelled: cancelled.length,
      cancelling: cancelling.length,
      not_cancellable: Number(rest?.count ?? 0),
    };
  });
}
