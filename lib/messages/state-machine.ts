import { and, eq, inArray, type SQL, type SQLWrapper, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { type EventType, type MessageStatus, messageStatusHistory, messages, phoneGroups } from '@/db/schema';
import { moveCredits } from '@/lib/credits/ledger';
import { DomainError } from '@/lib/errors';
import { emitEvent } from '@/lib/events/emit';
import { messagesMoved } from '@/lib/metrics/record';
import { notifyOutbox } from '@/lib/notify/outbox';
import { markChangedDays } from './daily-counts';
import { counterpartOf, type MessageRow, presentMessage } from './present';

/**
 * The delivery states (docs/adr/0008-state-machine.md), the one place that says which
 * moves are legal, what a move costs or refunds, and which event it emits.
 */
const NEXT: Record<MessageStatus, readonly MessageStatus[]> = {
  queued: ['dispatched', 'expired', 'failed', 'cancelled'],
  dispatched: ['sent', 'expired', 'failed', 'cancelling'],
  // Asked to cancel while a phone holds it: the phone's `cancelled` ends it, or its sent/failed wins.
  cancelling: ['cancelled', 'sent', 'expired', 'failed'],
  sent: ['delivered', 'failed'],
  delivered: [],
  failed: [],
  expired: [],
  cancelled: [],
  received: [],
};

const EVENT_OF: Partial<Record<MessageStatus, EventType>> = {
  sent: 'message.sent',
  delivered: 'message.delivered',
  failed: 'message.failed',
  expired: 'message.expired',
  cancelled: 'message.cancelled',
  cancelling: 'message.cancelling',
  received: 'message.received',
};

/**
 * The one move back, to `queued` again: made by the service, never reported by a phone (so not in
 * NEXT). A retry leaves `dispatched` (its phone failed it in a way a retry may fix); a move to
 * another phone of the message's group leaves `queued` or `dispatched`. The key is the history row
 * the move writes.
 */
export const REQUEUED_FROM = {
  retrying: ['dispatched'],
  rerouted: ['queued', 'dispatched'],
} as const satisfies Record<string, readonly MessageStatus[]>;

/** Final states that give the message's credit back (once: the ledger's unique key). */
const REFUNDED: ReadonlySet<MessageStatus> = new Set(['failed', 'expired', 'cancelled']);

/**
 * `messages.id` among the rows a `SELECT … LIMIT n FOR UPDATE SKIP LOCKED` picks. As `IN (subquery)`
 * the planner may run the subquery once per row and pick more than n; `ARRAY(subquery)` runs once.
 */
export function idIn(picked: SQLWrapper): SQL {
  return sql`${messages.id} = any(array(${picked}))`;
}

/**
 * The history rows of the messages a statement wrote or moved, written by that same statement: an
 * INSERT over the rows of its CTE `rows` (their `account_id`, `id` and `status`), entered at `at`
 * (a time, or a column of those rows such as `created_at`). `accountId`, when all are one account's,
 * is written as a fixed value, so that the INSERT routes to that account's shard. A move's caller
 * then calls `afterTransition` with `historyWritten`, for the rest.
 */
export function historyRowsSql(rows: string, at: Date | SQL, accountId?: string): SQL {
  const entered = at instanceof Date ? sql`${at.toISOString()}::timestamptz` : at;
  const account = accountId === undefined ? sql`account_id` : sql`${accountId}::uuid`;
  return sql`insert into message_status_history (account_id, message_id, status, at)
    select ${account}, id, status, ${entered} from ${sql.identifier(rows)}`;
}

/**
 * Whether entering `status` asks for nothing but the history row: no event, no refund. The sends'
 * own statements (lib/messages/send.ts, accept-batch.ts, bulk.ts) write a new `queued` message and
 * its history row without `afterTransition`, on the strength of this.
 */
export function needsOnlyHistory(status: MessageStatus): boolean {
  return EVENT_OF[status] === undefined && !REFUNDED.has(status);
}

export function canMove(from: MessageStatus, to: MessageStatus): boolean {
  return NEXT[from].includes(to);
}

/** The states a message may be in to move to `to`: the guard of every set-based transition. */
export function sourcesOf(to: MessageStatus): MessageStatus[] {
  return (Object.keys(NEXT) as MessageStatus[]).filter((from) => canMove(from, to));
}

function invalidTransition(message: { id: string; status: MessageStatus }, to: MessageStatus): DomainError {
  return new DomainError('INVALID_TRANSITION', `Message ${message.id} is ${message.status}; it cannot become ${to}.`, {
    extra: { current_status: message.status },
  });
}

/**
 * Moves one message to `to`, guarded by its current state in the UPDATE itself, so concurrent
 * reports cannot both win. Throws 409 INVALID_TRANSITION for a move the table above forbids.
 */
export async function transitionMessage(
  tx: Executor,
  message: MessageRow,
  to: MessageStatus,
  options: { error?: string | null; at?: Date } = {},
): Promise<MessageRow> {
  if (!canMove(message.status, to)) throw invalidTransition(message, to);
  const at = options.at ?? new Date();
  const [moved] = await tx
    .update(messages)
    .set({ status: to, updatedAt: at, ...(options.error !== undefined ? { error: options.error } : {}) })
    .where(
      and(
        eq(messages.accountId, message.accountId),
        eq(messages.id, message.id),
        inArray(messages.status, sourcesOf(to)),
      ),
    )
    .returning();
  if (!moved) {
    const [current] = await tx
      .select()
      .from(messages)
      .where(and(eq(messages.accountId, message.accountId), eq(messages.id, message.id)));
    throw invalidTransition(current ?? message, to);
  }
  await afterTransition(tx, [moved], { at, error: options.error ?? null });
  return moved;
}

/**
 * What follows rows that have just moved into their (shared) new state: the history rows, the
 * stale mark of an old message's day in the statistics' rollups, the refund of a failed or expired
 * message, and the event. Set-based transitions (claims, expiry) call it with every row they moved.
 * A statement that wrote the history rows itself, beside its move (`historyRowsSql`), says so
 * with `historyWritten`. Answers the id of each row's event, by message id.
 */
export async function afterTransition(
  tx: Executor,
  moved: MessageRow[],
  options: { at: Date; error?: string | null; historyWritten?: boolean },
): Promise<Map<string, string>> {
  const eventIds = new Map<string, string>();
  if (moved.length === 0) return eventIds;
  if (!options.historyWritten) {
    await tx.insert(messageStatusHistory).values(
      moved.map((row) => ({
        accountId: row.accountId,
        messageId: row.id,
        status: row.status,
        at: options.at,
        error: options.error ?? null,
      })),
    );
  }
  messagesMoved(tx, moved, options.at);
  // Before the refunds: the rollup rows' locks come after the messages' and before the groups'.
  await markChangedDays(tx, moved);
  // Refunds lock their groups in one order, so two sweeps refunding the same groups cannot deadlock.
  const ordered = [...moved].sort((a, b) => (a.groupId ?? 0) - (b.groupId ?? 0));
  for (const row of ordered) {
    if (REFUNDED.has(row.status)) await refund(tx, row);
    const type = EVENT_OF[row.status];
    if (type) {
      const eventId = await emitEvent(tx, {
        accountId: row.accountId,
        type,
        phone: accountPhoneOf(row),
        data: presentMessage(row),
        contactNumber: counterpartOf(row),
        callbackWebhookId: row.callbackWebhookId,
      });
      eventIds.set(row.id, eventId);
    }
  }
  return eventIds;
}

/** The account's own number in a message: the sender of an outbound one, the receiver of an inbound one. */
export function accountPhoneOf(row: MessageRow): string {
  return row.direction === 'outbound' ? row.from : row.to;
}

/**
 * One credit back to the group charged (credit_ledger_message_kind_key makes it once only). A group
 * deleted since the charge has handed its credits to the default group, so the refund goes there.
 */
async function refund(tx: Executor, row: MessageRow): Promise<void> {
  if (row.groupId === null) return;
  const [charged] = await tx
    .select({ id: phoneGroups.id })
    .from(phoneGroups)
    .where(and(eq(phoneGroups.id, row.groupId), eq(phoneGroups.accountId, row.accountId)));
  const groupId = charged?.id ?? (await defaultGroupOf(tx, row.accountId));
  await moveCredits(tx, { accountId: row.accountId, groupId, amount: 1, kind: 'refund', messageId: row.id });
}

async function defaultGroupOf(tx: Executor, accountId: string): Promise<number> {
  const [group] = await tx
    .select({ id: phoneGroups.id })
    .from(phoneGroups)
    .where(and(eq(phoneGroups.accountId, accountId), sql`${phoneGroups.isDefault}`));
  if (!group) throw new Error(`account ${accountId} has no default group`);
  return group.id;
}

export type Requeue =
  | { kind: 'retrying'; sendAt: Date; note: string; error: string }
  | { kind: 'rerouted'; to: { id: string; phone: string }; reason: string; attempt: boolean };

/**
 * Puts a message back in `queued` (REQUEUED_FROM): a retry later on the same phone, or a move to
 * another phone of its group. Guarded like every move, by the states it may leave and the phone it
 * is on (a move also by its group), so however many try at once it happens at most once: answers
 * undefined when the guard did not hold. The charge stays one credit; the move writes its history
 * row (`retrying` or `rerouted`), a move emits `message.rerouted`, and the phone that will claim the
 * message is woken.
 */
export async function requeueMessage(
  tx: Executor,
  message: MessageRow,
  change: Requeue,
  at: Date = new Date(),
): Promise<MessageRow | undefined> {
  const moving = change.kind === 'rerouted';
  const [requeued] = await tx
    .update(messages)
    .set({
      status: 'queued',
      updatedAt: at,
      ...(moving ? { phoneId: change.to.id, from: change.to.phone } : { sendAt: change.sendAt, error: change.error }),
      ...(!moving || change.attempt ? { attempts: sql`${messages.attempts} + 1` } : {}),
    })
    .where(
      and(
        eq(messages.accountId, message.accountId),
        eq(messages.id, message.id),
        eq(messages.phoneId, message.phoneId),
        inArray(messages.status, [...REQUEUED_FROM[change.kind]]),
        moving ? sql`${messages.fromGroup} is not null` : undefined,
      ),
    )
    .returning();
  if (!requeued) return undefined;
  await tx.insert(messageStatusHistory).values(
    moving
      ? {
          accountId: requeued.accountId,
          messageId: requeued.id,
          status: 'rerouted',
          fromPhone: message.from,
          toPhone: change.to.phone,
          error: change.reason,
          at,
        }
      : { accountId: requeued.accountId, messageId: requeued.id, status: 'retrying', error: change.note, at },
  );
  messagesMoved(tx, [{ ...requeued, status: change.kind }], at);
  if (moving) {
    await emitEvent(tx, {
      accountId: requeued.accountId,
      type: 'message.rerouted',
      phone: requeued.from,
      data: {
        ...presentMessage(requeued),
        rerouted: { from: message.from, to: change.to.phone, reason: change.reason },
      },
      contactNumber: counterpartOf(requeued),
    });
  }
  // A phone long-polling now learns of the message (or when its retry falls due).
  await notifyOutbox(tx, requeued.phoneId);
  return requeued;
}
