import { createHash } from 'node:crypto';
import { and, asc, between, eq, sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import { type MessageDetails, type MessageKind, messages } from '@/db/schema';
import type { DevicePrincipal } from '@/lib/auth/principal';
import { markAutomationPending, type PendingAutomation, runPendingAutomation } from '@/lib/automation/pending';
import { validationError } from '@/lib/errors';
import { handleOptOutWord } from '@/lib/opt-outs/inbound';
import { confirmSimByLoopback } from '@/lib/phones/sim-check';
import { isTransaction, withTransaction } from '@/lib/transactions';
import { findDevicePhone } from './device-phone';
import { SEND_AT_PAST_TOLERANCE_MS } from './limits';
import { type MessageRow, type MessageWire, presentMessage } from './present';
import { countSegments } from './segments';
import { afterTransition } from './state-machine';

export type ReceivedInput = {
  from: string;
  content: string;
  receivedAt?: Date;
  deviceMessageId?: string;
  /** `data` or `mms` from an SMSGate-app phone; a text SMS by default. */
  kind?: Extract<MessageKind, 'message' | 'data' | 'mms'>;
  details?: MessageDetails;
  /** The sender and text are the SMSGate app's ciphertext: stored as they are, no automation reads them. */
  encrypted?: boolean;
};

export type ReceivedAnswer = {
  created: boolean;
  message: MessageWire;
  pending: PendingAutomation | null;
  /** The message this one repeats (same phone, sender and text within the account's `inbound_dedup_seconds`). */
  duplicateOf: string | null;
};

/**
 * An earlier message of the phone from the same sender with the same text, received within the
 * account's `inbound_dedup_seconds` of `receivedAt` (0: none is looked for). Serialised on the
 * (phone, sender, text) by a transaction-scoped advisory lock taken first: of two identical reports
 * at once, the second waits for the first to commit, and its lookup (a statement of its own, so a
 * snapshot taken after the wait) finds the first's row. The lookup reads messages_account_from_idx.
 */
async function earlierCopy(
  tx: Executor,
  phone: { id: string; accountId: string },
  input: ReceivedInput,
  receivedAt: Date,
): Promise<MessageRow | undefined> {
  const key = createHash('sha256')
    .update(`${phone.id}\n${input.kind ?? 'message'}\n${input.from}\n${input.content}`)
    .digest('hex');
  const [account] = await queryRows<{ seconds: number }>(
    tx,
    sql`select a.inbound_dedup_seconds as seconds, pg_advisory_xact_lock(hashtextextended(${`inbound:${key}`}, 0))
        from accounts a where a.id = ${phone.accountId}::uuid and a.inbound_dedup_seconds > 0`,
  );
  if (!account) return undefined;
  const windowMs = Number(account.seconds) * 1000;
  const [earlier] = await tx
    .select()
    .from(messages)
    .where(
      and(
        eq(messages.accountId, phone.accountId),
        eq(messages.direction, 'inbound'),
        eq(messages.from, input.from),
        between(
          messages.createdAt,
          new Date(receivedAt.getTime() - windowMs),
          new Date(receivedAt.getTime() + windowMs),
        ),
        eq(messages.phoneId, phone.id),
        eq(messages.kind, input.kind ?? 'message'),
        eq(messages.content, input.content),
      ),
    )
    .orderBy(asc(messages.createdAt))
    .limit(1);
  return earlier;
}

/**
 * An SMS the phone received. Idempotent on the phone's own message id
 * (messages_phone_device_message_id_key): a retry answers the first message and emits nothing.
 * Duplicate-free: the same SMS reported again under another id (the SMSGate app's fallback reader
 * does so) within the account's `inbound_dedup_seconds` answers the first message as `duplicateOf`,
 * stores nothing and emits nothing (no webhook, rule or opt-out runs twice).
 *
 * Record, then act: the message, its events, the SIM check and the opt-out word are written in one
 * short transaction, with a mark (pending_automation) when the account has rules, a HELP text or
 * replies to forward to the senders of its mail (lib/email-to-sms/replies.ts);
 * the rules run after that commit, in a transaction of their own (lib/automation/pending.ts), so
 * no account's rules hold the transaction that records a message. Called with the database, this
 * runs them before answering (the answer carries `automation`); called inside the caller's
 * transaction, it answers the mark as `pending`, for the caller to run after its commit.
 */
export async function receiveMessage(
  executor: Executor,
  device: DevicePrincipal,
  input: ReceivedInput,
): Promise<ReceivedAnswer> {
  const phone = await findDevicePhone(executor, device);
  const now = new Date();
  const receivedAt = input.receivedAt ?? now;
  if (receivedAt.getTime() > now.getTime() + SEND_AT_PAST_TOLERANCE_MS) {
    throw validationError('received_at', 'must not be in the future');
  }
  const encrypted = input.encrypted === true;
  const { encoding, segments } =
    encrypted || input.kind === 'data' || input.kind === 'mms'
      ? { encoding: 'GSM-7' as const, segments: 1 }
      : countSegments(input.content);
  const recorded = await withTransaction(executor, async (tx) => {
    const earlier = await earlierCopy(tx, phone, input, receivedAt);
    if (earlier) {
      // The same report retried (its own id) answers as before; another id is a duplicate.
      const retry = input.deviceMessageId !== undefined && earlier.deviceMessageId === input.deviceMessageId;
      return { created: false, message: earlier, pending: null, duplicateOf: retry ? null : earlier.id };
    }
    const [message] = await tx
      .insert(messages)
      .values({
        accountId: phone.accountId,
        phoneId: phone.id,
        direction: 'inbound',
        from: input.from,
        to: phone.phone,
        content: input.content,
        status: 'received',
        segments,
        encoding,
        deviceMessageId: input.deviceMessageId,
        ...(input.kind ? { kind: input.kind } : {}),
        ...(input.details ? { details: input.details } : {}),
        encrypted,
        sendAt: receivedAt,
        createdAt: receivedAt,
        updatedAt: now,
      })
      .onConflictDoNothing()
      .returning();
    if (!message) {
      const [existing] = await tx
        .select()
        .from(messages)
        .where(
          and(
            eq(messages.accountId, phone.accountId),
            eq(messages.phoneId, phone.id),
            eq(messages.deviceMessageId, input.deviceMessageId ?? ''),
          ),
        );
      if (!existing) throw new Error('receiveMessage: conflicting row not found');
      return { created: false, message: existing, pending: null, duplicateOf: null };
    }
    const eventIds = await afterTransition(tx, [message], { at: receivedAt });
    if (encrypted) return { created: true, message, pending: null, duplicateOf: null };
    await confirmSimByLoopback(tx, message);
    // A data SMS's content is bytes in base64: no word or rule reads it.
    if (message.kind === 'data') return { created: true, message, pending: null, duplicateOf: null };
    // The opt-out word stays in this transaction, before anything else reacts to the message: it
    // is one row (and at most one confirmation), and a STOP committed with its message is in
    // force for every send that starts after this answer, whereas a STOP left to a later
    // transaction could let a send to the number slip through in between. A message that was
    // such a word is answered by nothing else.
    if ((await handleOptOutWord(tx, message)) !== null)
      return { created: true, message, pending: null, duplicateOf: null };
    // Rules answer text messages only (an MMS is recorded and reported, never answered).
    const pending =
      message.kind === 'message' ? await markAutomationPending(tx, message, eventIds.get(message.id)) : null;
    return { created: true, message, pending, duplicateOf: null };
  });
  if (!recorded.pending || isTransaction(executor)) {
    return { ...recorded, message: presentMessage(recorded.message) };
  }
  const automation = await runPendingAutomation(executor, recorded.pending);
  return {
    created: true,
    message: presentMessage({ ...recorded.message, automation }),
    pending: null,
    duplicateOf: null,
  };
}
