import { and, eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { type MessageDetails, type MessageKind, messages } from '@/db/schema';
import type { DevicePrincipal } from '@/lib/auth/principal';
import { runInboundAutomation } from '@/lib/automation/run';
import { validationError } from '@/lib/errors';
import { handleOptOutWord } from '@/lib/opt-outs/inbound';
import { confirmSimByLoopback } from '@/lib/phones/sim-check';
import { withTransaction } from '@/lib/transactions';
import { findDevicePhone } from './device-phone';
import { SEND_AT_PAST_TOLERANCE_MS } from './limits';
import { type MessageWire, presentMessage } from './present';
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

/**
 * An SMS the phone received. Idempotent on the phone's own message id
 * (messages_phone_device_message_id_key): a retry answers the first message and emits nothing.
 */
export async function receiveMessage(
  executor: Executor,
  device: DevicePrincipal,
  input: ReceivedInput,
): Promise<{ created: boolean; message: MessageWire }> {
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
  return withTransaction(executor, async (tx) => {
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
      return { created: false, message: presentMessage(existing) };
    }
    const eventIds = await afterTransition(tx, [message], { at: receivedAt });
    if (encrypted) return { created: true, message: presentMessage(message) };
    await confirmSimByLoopback(tx, message);
    // A data SMS's content is bytes in base64: no word or rule reads it.
    if (message.kind === 'data') return { created: true, message: presentMessage(message) };
    // Opt-out words first: a message that was one is answered by nothing else.
    const automation =
      (await handleOptOutWord(tx, message)) === null
        ? await runInboundAutomation(tx, message, eventIds.get(message.id))
        : null;
    return { created: true, message: presentMessage({ ...message, automation }) };
  });
}
