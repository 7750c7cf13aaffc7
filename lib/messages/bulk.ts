import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { bulkMessages, type MessagePriority, messages, phones } from '@/db/schema';
import { chargeMessages } from '@/lib/credits/ledger';
import { notFound, validationError } from '@/lib/errors';
import { messagesAccepted } from '@/lib/metrics/record';
import { notifyOutbox } from '@/lib/notify/outbox';
import { withTransaction } from '@/lib/transactions';
import { callbackTarget } from '@/lib/webhooks/callbacks';
import { iso } from '@/lib/wire';
import { checkDataSender } from './data-sms';
import { insertOutbound, type OutboundMessage, outboundRecords } from './outbound-row';
import {
  nothingToSend,
  type OutboundPlanInput,
  type PlannedMessage,
  planOutbound,
  type RejectedRecipient,
} from './plan';
import { reserveQueue } from './queue-room';
import { scheduleOf } from './schedule';
import type { Encoding } from './segments';

export type BulkInput = OutboundPlanInput & {
  sendAt?: Date;
  ttlSeconds?: number;
  priority?: MessagePriority;
  statusCallbackUrl?: string;
  /** Data SMS: `content` is their bytes in base64, sent to this port, from one app-paired phone (lib/messages/data-sms.ts). */
  dataPort?: number;
  /** The request's field that carried the data, named when a phone cannot send it (default `data`). */
  dataField?: string;
  /** The API the send came through, which `simgate_messages_accepted_total` counts it under (else `system`). */
  via?: 'v1' | '3rdparty';
};
export type BulkCreated = {
  id: string;
  count: number;
  message_ids: string[];
  segments: number;
  encoding: Encoding;
  rejected: RejectedRecipient[];
};

/**
 * One message per distinct recipient (recipients arrive normalised to E.164), each with its
 * template rendered; recipients who opted out or lack a variable are rejected and not charged.
 * The rest are charged all or none: one guarded charge of N credits, one INSERT of N messages,
 * one of N history rows. Through a group, recipients are spread over its phones (lib/messages/assign.ts).
 */
export async function sendBulk(executor: Executor, accountId: string, input: BulkInput): Promise<BulkCreated> {
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
    messagesAccepted(tx, plan.planned.length, { surface: input.via ?? 'system' });
    return {
      id: bulk.id,
      count: plan.planned.length,
      message_ids: messageIds,
      segments: Math.max(...plan.planned.map((message) => message.segments)),
      encoding: plan.planned.some((message) => message.encoding === 'UCS-2') ? 'UCS-2' : 'GSM-7',
      rejected: plan.rejected,
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
    with message as (${insertOutbound({ source: outboundRecords(rows, 'm'), alias: 'm' })})
    insert into message_status_history (account_id, message_id, status, at)
    select ${batch.accountId}::uuid, id, status, created_at from message
  `);
}

const COUNTED = ['queued', 'dispatched', 'sent', 'delivered', 'failed', 'expired', 'cancelled'] as const;

export async function getBulk(executor: Executor, accountId: string, bulkId: string) {
  const [bulk] = await executor
    .select({
      id: bulkMessages.id,
      from: phones.phone,
      fromGroup: bulkMessages.fromGroup,
      count: bulkMessages.recipientCount,
      createdAt: bulkMessages.createdAt,
    })
    .from(bulkMessages)
    .leftJoin(phones, and(eq(phones.accountId, bulkMessages.accountId), eq(phones.id, bulkMessages.phoneId)))
    .where(and(eq(bulkMessages.id, bulkId), eq(bulkMessages.accountId, accountId)));
  if (!bulk) throw notFound('Bulk message');
  const rows = await executor
    .select({ status: messages.status, count: sql<number>`count(*)::int` })
    .from(messages)
    .where(and(eq(messages.bulkId, bulkId), eq(messages.accountId, accountId)))
    .groupBy(messages.status);
  const counts = Object.fromEntries(COUNTED.map((status) => [status, 0])) as Record<(typeof COUNTED)[number], number>;
  for (const row of rows) {
    // A message the phone was asked to drop is still on the phone until it answers.
    const status = row.status === 'cancelling' ? 'dispatched' : row.status;
    if (status in counts) counts[status as keyof typeof counts] += Number(row.count);
  }
  return {
    id: bulk.id,
    from: bulk.from,
    from_group: bulk.fromGroup,
    count: bulk.count,
    created_at: iso(bulk.createdAt),
    counts,
  };
}
