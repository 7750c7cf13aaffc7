import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { bulkMessages, type MessagePriority, messages, phones } from '@/db/schema';
import { chargeMessages } from '@/lib/credits/ledger';
import { withTransaction } from '@/lib/db';
import { notFound } from '@/lib/errors';
import { notifyOutbox } from '@/lib/notify/outbox';
import { callbackTarget } from '@/lib/webhooks/callbacks';
import { iso } from '@/lib/wire';
import { nothingToSend, type OutboundPlanInput, planOutbound, type RejectedRecipient } from './plan';
import { scheduleOf } from './schedule';
import type { Encoding } from './segments';
import { afterTransition } from './state-machine';

export type BulkInput = OutboundPlanInput & {
  sendAt?: Date;
  ttlSeconds?: number;
  priority?: MessagePriority;
  statusCallbackUrl?: string;
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
  return withTransaction(executor, async (tx) => {
    // The phones before the group (lib/phones/delete.ts): a deletion under way is waited for, not deadlocked with.
    const plan = await planOutbound(tx, accountId, input, { lock: true });
    if (plan.planned.length === 0) throw nothingToSend(plan.rejected);
    const callbackWebhookId = input.statusCallbackUrl
      ? await callbackTarget(tx, accountId, input.statusCallbackUrl)
      : null;
    const messageIds = plan.planned.map(() => randomUUID());
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
    const inserted = await tx
      .insert(messages)
      .values(
        plan.planned.map((message, index) => ({
          id: messageIds[index],
          accountId,
          phoneId: message.phone.id,
          groupId: plan.groupId,
          direction: 'outbound' as const,
          from: message.phone.phone,
          to: message.to,
          content: message.content,
          status: 'queued' as const,
          segments: message.segments,
          encoding: message.encoding,
          bulkId: bulk.id,
          sim: input.sim ?? null,
          priority: input.priority ?? 'normal',
          callbackWebhookId,
          fromGroup: input.fromGroup ?? null,
          sendAt: schedule.sendAt,
          expiresAt: schedule.expiresAt,
          createdAt: bulk.createdAt,
          updatedAt: bulk.createdAt,
        })),
      )
      .returning();
    await afterTransition(tx, inserted, { at: bulk.createdAt });
    for (const phoneId of new Set(plan.planned.map((message) => message.phone.id))) await notifyOutbox(tx, phoneId);
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
    .leftJoin(phones, eq(phones.id, bulkMessages.phoneId))
    .where(and(eq(bulkMessages.id, bulkId), eq(bulkMessages.accountId, accountId)));
  if (!bulk) throw notFound('Bulk message');
  const rows = await executor
    .select({ status: messages.status, count: sql<number>`count(*)::int` })
    .from(messages)
    .where(and(eq(messages.bulkId, bulkId), eq(messages.accountId, accountId)))
    .groupBy(messages.status);
  const counts = Object.fromEntries(COUNTED.map((status) => [status, 0])) as Record<(typeof COUNTED)[number], number>;
  for (const row of rows) if (row.status in counts) counts[row.status as keyof typeof counts] = Number(row.count);
  return {
    id: bulk.id,
    from: bulk.from,
    from_group: bulk.fromGroup,
    count: bulk.count,
    created_at: iso(bulk.createdAt),
    counts,
  };
}
