import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { bulkMessages, type MessagePriority } from '@/db/schema';
import { chargeMessages } from '@/lib/credits/ledger';
import { validationError } from '@/lib/errors';
import { messagesAccepted } from '@/lib/metrics/record';
import { notifyOutbox } from '@/lib/notify/outbox';
import { withTransaction } from '@/lib/transactions';
import { callbackTarget } from '@/lib/webhooks/callbacks';
import { checkDataSender } from './data-sms';
import { estimateBulkCompletion } from './estimate';
import { type ApiOrigin, ORIGINS } from './origins';
import { insertOutbound, type OutboundMessage, outboundRecords } from './outbound-row';
import {
  nothingToSend,
  type OutboundPlanInput,
  type PlannedMessage,
  planOutbound,
  type RejectedRecipient,
} from './plan';
import { reserveQueue } from './queue-room';
import { bulkQuotaRace, isQuotaRace, recordRecipientsCtes } from './quota';
import { scheduleOf } from './schedule';
import type { Encoding } from './segments';
import { historyRowsSql } from './state-machine';

export type BulkInput = OutboundPlanInput & {
  sendAt?: Date;
  ttlSeconds?: number;
  priority?: MessagePriority;
  statusCallbackUrl?: string;
  /** Data SMS: `content` is their bytes in base64, sent to this port, from one app-paired phone (lib/messages/data-sms.ts). */
  dataPort?: number;
  /** The request's field that carried the data, named when a phone cannot send it (default `data`). */
  dataField?: string;
  /** Who asks for the send: its screens and its metrics label (lib/messages/origins.ts). */
  origin: ApiOrigin;
};
export type BulkCreated = {
  id: string;
  count: number;
  message_ids: string[];
  segments: number;
  encoding: Encoding;
  rejected: RejectedRecipient[];
  /** How many recipients each phone takes, in the order the phones were first chosen. */
  phones: Array<{ phone: string; count: number }>;
  estimated_completion_at: string | null;
};

/**
 * One message per distinct recipient (recipients arrive normalised to E.164), each with its
 * template rendered; recipients who opted out or lack a variable are rejected and not charged.
 * The rest are charged all or none: one guarded charge of N credits, one INSERT of N messages,
 * one of N history rows. Through a group, recipients are spread over its phones (lib/messages/assign.ts).
 */
export async function sendBulk(executor: Executor, accountId: string, input: BulkInput): Promise<BulkCreated> {
  try {
    return await acceptBulk(executor, accountId, input);
  } catch (error) {
    // A concurrent send took the last room of a phone this bulk counted on: nothing was written.
    if (isQuotaRace(error)) throw bulkQuotaRace();
    throw error;
  }
}

async function acceptBulk(executor: Executor, accountId: string, input: BulkInput): Promise<BulkCreated> {
  const schedule = scheduleOf(input);
  if (input.dataPort !== undefined) {
    if (input.from === undefined) throw validationError('from', 'a data SMS is sent from one phone, not a group');
    await checkDataSender(executor, accountId, input.from, input.dataField);
  }
  return withTransaction(executor, async (tx) => {
    // The phones before the group (lib/phones/delete.ts): a deletion under way is waited for, not deadlocked with.
    const plan = await planOutbound(tx, accountId, input, { lock: true });
    if (plan.planned.length === 0) throw nothingToSend(plan.rejected);
    const callbackWebhookId = input.statusCallbackUrl
      ? await callbackTarget(tx, accountId, input.statusCallbackUrl)
      : null;
    const messageIds = plan.planned.map(() => randomUUID());
    // Room in the account's queue before any credit moves (429 QUEUE_FULL), the phones locked first.
    await reserveQueue(tx, accountId, messageIds.length);
    // Charge first: a group that cannot pay refuses before a thousand rows are written.
    await chargeMessages(tx, { accountId, groupId: plan.groupId, messageIds });
    const [bulk] = await tx
      .insert(bulkMessages)
      .values({
        accountId,
        phoneId: plan.senderPhoneId,
        fromGroup: input.fromGroup ?? null,
        content: input.content,
        recipientCount: plan.planned.length,
      })
      .returning();
    if (!bulk) throw new Error('sendBulk: insert returned no row');
    await insertQueued(tx, {
      accountId,
      groupId: plan.groupId,
      bulkId: bulk.id,
      planned: plan.planned,
      messageIds,
      sim: input.sim ?? null,
      priority: input.priority ?? 'normal',
      callbackWebhookId,
      fromGroup: input.fromGroup ?? null,
      dataPort: input.dataPort ?? null,
      encrypted: input.encrypted === true,
      requestId: null,
      ...schedule,
      at: bulk.createdAt,
    });
    for (const phoneId of new Set(plan.planned.map((message) => message.phone.id))) await notifyOutbox(tx, phoneId);
    // The charge was counted by chargeMessages.
    messagesAccepted(tx, plan.planned.length, { surface: ORIGINS[input.origin].surface });
    const estimated = await estimateBulkCompletion(tx, accountId, bulk.id);
    return {
      id: bulk.id,
      count: plan.planned.length,
      message_ids: messageIds,
      segments: Math.max(...plan.planned.map((message) => message.segments)),
      encoding: plan.planned.some((message) => message.encoding === 'UCS-2') ? 'UCS-2' : 'GSM-7',
      rejected: plan.rejected,
      phones: perPhone(plan.planned),
      estimated_completion_at: estimated ? estimated.toISOString() : null,
    };
  });
}

/**
 * The bulk's messages and their first history rows in one statement: the messages travel as one
 * JSON parameter (lib/messages/outbound-row.ts), so that a thousand messages cost one short
 * statement to build rather than tens of thousands of parameters. A new
 * queued message needs only its history row (`needsOnlyHistory('queued')` in
 * lib/messages/state-machine.ts, held by its test), as in the single send's statement (lib/messages/send.ts).
 */
export async function insertQueued(
  tx: Executor,
  batch: {
    accountId: string;
    groupId: number;
    bulkId: string | null;
    planned: PlannedMessage[];
    messageIds: string[];
    sim: number | null;
    priority: MessagePriority;
    callbackWebhookId: string | null;
    fromGroup: number | null;
    dataPort: number | null;
    encrypted: boolean;
    requestId: string | null;
    sendAt: Date;
    expiresAt: Date;
    at: Date;
  },
): Promise<void> {
  const rows: OutboundMessage[] = batch.planned.map((message, index) => ({
    id: batch.messageIds[index] as string,
    accountId: batch.accountId,
    phoneId: message.phone.id,
    groupId: batch.groupId,
    from: message.phone.phone,
    to: message.to,
    content: message.content,
    segments: batch.dataPort === null ? message.segments : 1,
    encoding: batch.dataPort === null ? message.encoding : 'GSM-7',
    kind: batch.dataPort === null ? 'message' : 'data',
    dataPort: batch.dataPort,
    sim: batch.sim,
    fromGroup: batch.fromGroup,
    priority: batch.priority,
    callbackWebhookId: batch.callbackWebhookId,
    requestId: batch.requestId,
    bulkId: batch.bulkId,
    encrypted: batch.encrypted,
    origin: null,
    sendAt: batch.sendAt,
    expiresAt: batch.expiresAt,
    createdAt: batch.at,
  }));
  await tx.execute(sql`
    with message as (${insertOutbound({ source: outboundRecords(rows, 'm'), alias: 'm' })}),
    history as (${historyRowsSql('message', sql`created_at`, batch.accountId)}),
    ${recordRecipientsCtes()}
    select ok from quota_guard
  `);
}

/** How many of `planned` each phone takes. */
function perPhone(planned: PlannedMessage[]): Array<{ phone: string; count: number }> {
  const counts = new Map<string, number>();
  for (const message of planned) counts.set(message.phone.phone, (counts.get(message.phone.phone) ?? 0) + 1);
  return [...counts].map(([phone, count]) => ({ phone, count }));
}
