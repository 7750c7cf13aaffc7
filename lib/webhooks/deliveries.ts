import { and, asc, eq, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { events, webhookAttempts, webhookDeliveries } from '@/db/schema';
import { notFound } from '@/lib/errors';
import { webhookPayload } from '@/lib/event-catalogue/catalogue';
import { notifyDeliveriesQueued } from '@/lib/events/emit';
import { keysetPage, type Page, toPage } from '@/lib/pagination';
import { withTransaction } from '@/lib/transactions';
import type { z } from '@/lib/zod';
import { findWebhook } from './manage';
import { presentAttempt, presentDelivery } from './present';
import type { deliveryQuery } from './schemas';

type DeliveryWire = ReturnType<typeof presentDelivery>;

/** The webhook's delivery log, newest first, optionally by status and event type. */
export async function listDeliveries(
  executor: Executor,
  accountId: string,
  webhookId: string,
  query: z.output<typeof deliveryQuery>,
): Promise<Page<DeliveryWire>> {
  await findWebhook(executor, accountId, webhookId);
  const keyset = keysetPage(query, {
    createdAt: webhookDeliveries.createdAt,
    id: webhookDeliveries.id,
    idType: 'uuid',
  });
  const rows = await executor
    .select()
    .from(webhookDeliveries)
    .where(
      and(
        eq(webhookDeliveries.accountId, accountId),
        eq(webhookDeliveries.webhookId, webhookId),
        query.status ? eq(webhookDeliveries.status, query.status) : undefined,
        query.event ? eq(webhookDeliveries.eventType, query.event) : undefined,
        keyset.after,
      ),
    )
    .orderBy(...keyset.orderBy)
    .limit(keyset.limit);
  return toPage(rows, query.limit, presentDelivery);
}

/** One delivery with the body it posts and every attempt, oldest first. */
export async function getDelivery(executor: Executor, accountId: string, webhookId: string, deliveryId: string) {
  const [found] = await executor
    .select({ delivery: webhookDeliveries, event: events })
    .from(webhookDeliveries)
    .innerJoin(events, and(eq(events.accountId, webhookDeliveries.accountId), eq(events.id, webhookDeliveries.eventId)))
    .where(
      and(
        eq(webhookDeliveries.id, deliveryId),
        eq(webhookDeliveries.webhookId, webhookId),
        eq(webhookDeliveries.accountId, accountId),
      ),
    );
  if (!found) throw notFound('Delivery');
  const attempts = await executor
    .select()
    .from(webhookAttempts)
    .where(and(eq(webhookAttempts.accountId, accountId), eq(webhookAttempts.deliveryId, deliveryId)))
    .orderBy(asc(webhookAttempts.id));
  return {
    ...presentDelivery(found.delivery),
    payload: webhookPayload(found.event.type, found.event.createdAt, found.event.payload),
    attempts: attempts.map(presentAttempt),
  };
}

/**
 * Queues the delivery for an attempt now, whatever its state (same event id, so receivers that
 * already have it de-duplicate). A paused webhook's delivery waits until it is enabled again.
 */
export async function resendDelivery(
  executor: Executor,
  accountId: string,
  webhookId: string,
  deliveryId: string,
): Promise<DeliveryWire> {
  return withTransaction(executor, async (tx) => {
    const [row] = await tx
      .update(webhookDeliveries)
      // The database's clock, which workers claim by.
      .set({ status: 'pending', nextAttemptAt: sql`now()`, updatedAt: sql`now()` })
      .where(
        and(
          eq(webhookDeliveries.id, deliveryId),
          eq(webhookDeliveries.webhookId, webhookId),
          eq(webhookDeliveries.accountId, accountId),
        ),
      )
      .returning();
    if (!row) throw notFound('Delivery');
    await notifyDeliveriesQueued(tx);
    return presentDelivery(row);
  });
}

/** Queues a signed `webhook.test` ping to this one webhook, whatever events it subscribes to. */
export async function queueTestEvent(executor: Executor, accountId: string, webhookId: string): Promise<DeliveryWire> {
  return withTransaction(executor, async (tx) => {
    await findWebhook(tx, accountId, webhookId);
    const [event] = await tx
      .insert(events)
      .values({
        accountId,
        type: 'webhook.test',
        payload: { webhook_id: webhookId, message: 'This is a test event from Simgate.' },
      })
      .returning({ id: events.id });
    const [row] = await tx
      .insert(webhookDeliveries)
      .values({ accountId, webhookId, eventId: event!.id, eventType: 'webhook.test' })
      .returning();
    await notifyDeliveriesQueued(tx);
    return presentDelivery(row!);
  });
}
