import { randomUUID } from 'node:crypto';
import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { bulkMessages, messages, phones } from '@/db/schema';
import { chargeMessages } from '@/lib/credits/ledger';
import { withTransaction } from '@/lib/db';
import { notFound } from '@/lib/errors';
import { notifyOutbox } from '@/lib/notify/outbox';
import { iso } from '@/lib/wire';
import { scheduleOf } from './schedule';
import { countSegments, type Encoding } from './segments';
import { findSenderPhone } from './sender';
import { afterTransition } from './state-machine';

export type BulkInput = { from: string; recipients: string[]; content: string; sendAt?: Date; ttlSeconds?: number };
export type BulkCreated = { id: string; count: number; message_ids: string[]; segments: number; encoding: Encoding };

/**
 * One message per distinct recipient (recipients arrive normalised to E.164), all charged or
 * none: one guarded charge of N credits, one INSERT of N messages, one of N history rows.
 */
export async function sendBulk(executor: Executor, accountId: string, input: BulkInput): Promise<BulkCreated> {
  const recipients = [...new Set(input.recipients)];
  const schedule = scheduleOf(input);
  const { encoding, segments } = countSegments(input.content);
  return withTransaction(executor, async (tx) => {
    // The phone before the group (lib/phones/delete.ts): a deletion under way is waited for, not deadlocked with.
    const sender = await findSenderPhone(tx, accountId, input.from, { lock: true });
    const messageIds = recipients.map(() => randomUUID());
    // Charge first: a group that cannot pay refuses before a thousand rows are written.
    await chargeMessages(tx, { accountId, groupId: sender.groupId, messageIds });
    const [bulk] = await tx
      .insert(bulkMessages)
      .values({ accountId, phoneId: sender.id, content: input.content, recipientCount: recipients.length })
      .returning();
    if (!bulk) throw new Error('sendBulk: insert returned no row');
    const inserted = await tx
      .insert(messages)
      .values(
        recipients.map((to, index) => ({
          id: messageIds[index],
          accountId,
          phoneId: sender.id,
          groupId: sender.groupId,
          direction: 'outbound' as const,
          from: sender.phone,
          to,
          content: input.content,
          status: 'queued' as const,
          segments,
          encoding,
          bulkId: bulk.id,
          sendAt: schedule.sendAt,
          expiresAt: schedule.expiresAt,
          createdAt: bulk.createdAt,
          updatedAt: bulk.createdAt,
        })),
      )
      .returning();
    await afterTransition(tx, inserted, { at: bulk.createdAt });
    await notifyOutbox(tx, sender.id);
    return { id: bulk.id, count: recipients.length, message_ids: messageIds, segments, encoding };
  });
}

const COUNTED = ['queued', 'dispatched', 'sent', 'delivered', 'failed', 'expired'] as const;

export async function getBulk(executor: Executor, accountId: string, bulkId: string) {
  const [bulk] = await executor
    .select({
      id: bulkMessages.id,
      from: phones.phone,
      count: bulkMessages.recipientCount,
      createdAt: bulkMessages.createdAt,
    })
    .from(bulkMessages)
    .innerJoin(phones, eq(phones.id, bulkMessages.phoneId))
    .where(and(eq(bulkMessages.id, bulkId), eq(bulkMessages.accountId, accountId)));
  if (!bulk) throw notFound('Bulk message');
  const rows = await executor
    .select({ status: messages.status, count: sql<number>`count(*)::int` })
    .from(messages)
    .where(and(eq(messages.bulkId, bulkId), eq(messages.accountId, accountId)))
    .groupBy(messages.status);
  const counts = Object.fromEntries(COUNTED.map((status) => [status, 0])) as Record<(typeof COUNTED)[number], number>;
  for (const row of rows) if (row.status in counts) counts[row.status as keyof typeof counts] = Number(row.count);
  return { id: bulk.id, from: bulk.from, count: bulk.count, created_at: iso(bulk.createdAt), counts };
}
