import { and, eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { messages } from '@/db/schema';
import { moveCredits } from '@/lib/credits/ledger';
import { DomainError, validationError } from '@/lib/errors';
import { notifyOutbox } from '@/lib/notify/outbox';
import { toE164 } from '@/lib/phone-number';
import { MAX_CONTENT_LENGTH, MAX_REQUEST_ID_LENGTH } from './limits';
import { type MessageWire, presentMessage } from './present';
import { scheduleOf } from './schedule';
import { countSegments } from './segments';
import { findSenderPhone } from './sender';
import { afterTransition } from './state-machine';

export type SendInput = {
  from: string;
  to: string;
  content: string;
  requestId?: string;
  sendAt?: Date;
  ttlSeconds?: number;
};

function checkInput(input: SendInput): { from: string; to: string } {
  const from = toE164(input.from);
  if (!from) throw validationError('from', 'not a valid E.164 phone number');
  const to = toE164(input.to);
  if (!to) throw validationError('to', 'not a valid E.164 phone number');
  if (input.content.length < 1 || input.content.length > MAX_CONTENT_LENGTH) {
    throw validationError('content', `must be 1 to ${MAX_CONTENT_LENGTH} characters`);
  }
  if (input.requestId !== undefined && (input.requestId.length < 1 || input.requestId.length > MAX_REQUEST_ID_LENGTH)) {
    throw validationError('request_id', `must be 1 to ${MAX_REQUEST_ID_LENGTH} characters`);
  }
  return { from, to };
}

/**
 * Accepts one outbound message: sender ownership (403), request_id idempotency (409), one credit
 * from the sender's group (402), the message, its first history row and the claimers' wake-up,
 * all in one transaction. Idempotency rests on messages_account_request_id_key: the insert comes
 * first and yields to an existing row, so concurrent sends with one request_id make one message
 * and one charge, and a refused charge takes the insert back with it.
 */
export async function sendMessage(executor: Executor, accountId: string, input: SendInput): Promise<MessageWire> {
  const { from, to } = checkInput(input);
  const schedule = scheduleOf(input);
  const { encoding, segments } = countSegments(input.content);
  // A savepoint inside a caller's transaction: a refused send leaves that transaction usable.
  return executor.transaction(async (tx) => {
    const sender = await findSenderPhone(tx, accountId, from);
    const [message] = await tx
      .insert(messages)
      .values({
        accountId,
        phoneId: sender.id,
        groupId: sender.groupId,
        direction: 'outbound',
        from,
        to,
        content: input.content,
        status: 'queued',
        segments,
        encoding,
        requestId: input.requestId,
        sendAt: schedule.sendAt,
        expiresAt: schedule.expiresAt,
      })
      .onConflictDoNothing()
      .returning();
    if (!message) throw await duplicateRequest(tx, accountId, input.requestId);
    await moveCredits(tx, {
      accountId,
      groupId: sender.groupId,
      amount: -1,
      kind: 'message_charge',
      messageId: message.id,
      insufficientStatus: 402,
    });
    await afterTransition(tx, [message], { at: message.createdAt });
    // Also for a scheduled message: a waiting claim then waits until it falls due, not the whole wait.
    await notifyOutbox(tx, sender.id);
    return presentMessage(message);
  });
}

async function duplicateRequest(executor: Executor, accountId: string, requestId: string | undefined) {
  const [existing] = requestId
    ? await executor
        .select({ id: messages.id })
        .from(messages)
        .where(and(eq(messages.accountId, accountId), eq(messages.requestId, requestId)))
    : [];
  return new DomainError('DUPLICATE_REQUEST', `A message with request_id "${requestId}" already exists.`, {
    extra: existing ? { message_id: existing.id } : undefined,
  });
}
