import { randomUUID } from 'node:crypto';
import { and, eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { messages } from '@/db/schema';
import { chargeMessages } from '@/lib/credits/ledger';
import { DomainError } from '@/lib/errors';
import { messagesAccepted } from '@/lib/metrics/record';
import { notifyOutbox } from '@/lib/notify/outbox';
import { isUniqueViolation, withTransaction } from '@/lib/transactions';
import { callbackTarget } from '@/lib/webhooks/callbacks';
import { type BulkInput, insertQueued } from './bulk';
import { ORIGINS } from './origins';
import { planOutbound } from './plan';
import { type MessageWire, presentMessage } from './present';
import { reserveQueue } from './queue-room';
import { scheduleOf } from './schedule';

/**
 * One encrypted message (`encrypted: true` on POST /api/v1/messages): its text and number are the
 * SMSGate app's ciphertext, stored and handed to the app as they are. Checked as lib/messages/plan.ts
 * says for encrypted sends (one phone paired with the app, no opt-out or country check), charged one
 * credit, and idempotent on request_id like any send.
 */
export async function sendEncryptedMessage(
  executor: Executor,
  accountId: string,
  input: Omit<BulkInput, 'recipients'> & { to: string; requestId?: string },
): Promise<MessageWire> {
  const schedule = scheduleOf(input);
  const requestId = input.requestId ?? null;
  try {
    return await withTransaction(executor, async (tx) => {
      const plan = await planOutbound(
        tx,
        accountId,
        { ...input, recipients: [input.to], encrypted: true },
        { lock: true },
      );
      if (requestId !== null) await refuseUsedRequestId(tx, accountId, requestId);
      const callbackWebhookId = input.statusCallbackUrl
        ? await callbackTarget(tx, accountId, input.statusCallbackUrl)
        : null;
      const id = randomUUID();
      await reserveQueue(tx, accountId, 1);
      await chargeMessages(tx, { accountId, groupId: plan.groupId, messageIds: [id] });
      await insertQueued(tx, {
        accountId,
        groupId: plan.groupId,
        bulkId: null,
        planned: plan.planned,
        messageIds: [id],
        sim: input.sim ?? null,
        priority: input.priority ?? 'normal',
        callbackWebhookId,
        fromGroup: null,
        dataPort: null,
        encrypted: true,
        requestId,
        ...schedule,
        at: new Date(),
      });
      for (const phoneId of new Set(plan.planned.map((message) => message.phone.id))) await notifyOutbox(tx, phoneId);
      messagesAccepted(tx, 1, { surface: ORIGINS[input.origin].surface });
      const [row] = await tx
        .select()
        .from(messages)
        .where(and(eq(messages.accountId, accountId), eq(messages.id, id)));
      if (!row) throw new Error('sendEncryptedMessage: the message was not written');
      return presentMessage(row);
    });
  } catch (error) {
    if (requestId !== null && isUniqueViolation(error, 'messages_account_request_id_key')) {
      await refuseUsedRequestId(executor, accountId, requestId);
    }
    throw error;
  }
}

async function refuseUsedRequestId(executor: Executor, accountId: string, requestId: string): Promise<void> {
  const [existing] = await executor
    .select({ id: messages.id })
    .from(messages)
    .where(and(eq(messages.accountId, accountId), eq(messages.requestId, requestId)));
  if (existing) {
    throw new DomainError('DUPLICATE_REQUEST', `A message with request_id "${requestId}" already exists.`, {
      extra: { message_id: existing.id },
    });
  }
}
