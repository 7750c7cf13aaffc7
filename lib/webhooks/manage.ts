import { and, eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { webhooks } from '@/db/schema';
import { notFound } from '@/lib/errors';
import { keysetPage, type Page, type PageQuery, toPage } from '@/lib/pagination';
import { presentWebhook, type WebhookRow } from './present';
import type { CreateWebhookInput, UpdateWebhookInput } from './schemas';
import { generateWebhookSecret, PREVIOUS_SECRET_GRACE_MS, sealWebhookSecret, unsealWebhookSecret } from './signing';
import { assertOwnPhones, assertReachableUrl } from './validate';

type WebhookWire = ReturnType<typeof presentWebhook>;

export async function findWebhook(executor: Executor, accountId: string, id: string): Promise<WebhookRow> {
  const [row] = await executor
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.id, id), eq(webhooks.accountId, accountId)));
  if (!row) throw notFound('Webhook');
  return row;
}

/** Creates a webhook with a fresh signing secret, shown in the answer. */
export async function createWebhook(
  executor: Executor,
  accountId: string,
  input: CreateWebhookInput,
): Promise<WebhookWire & { secret: string }> {
  const phoneFilters = input.phone_filters ?? [];
  await assertOwnPhones(executor, accountId, phoneFilters);
  await assertReachableUrl(input.url);
  const secret = generateWebhookSecret();
  const [row] = await executor
    .insert(webhooks)
    .values({
      accountId,
      url: input.url,
      events: input.events,
      phoneFilters,
      description: input.description ?? null,
      secretEncrypted: sealWebhookSecret(secret),
    })
    .returning();
  return { ...presentWebhook(row!), secret };
}

export async function listWebhooks(executor: Executor, accountId: string, page: PageQuery): Promise<Page<WebhookWire>> {
  const keyset = keysetPage(page, { createdAt: webhooks.createdAt, id: webhooks.id, idType: 'uuid' });
  const rows = await executor
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.accountId, accountId), keyset.after))
    .orderBy(...keyset.orderBy)
    .limit(keyset.limit);
  return toPage(rows, page.limit, presentWebhook);
}

export async function getWebhook(executor: Executor, accountId: string, id: string): Promise<WebhookWire> {
  return presentWebhook(await findWebhook(executor, accountId, id));
}

/**
 * Changes what was sent. Enabling clears the reason an automatic disable left and the failure
 * streak, so a re-enabled webhook gets a fresh day before it can be disabled again.
 */
export async function updateWebhook(
  executor: Executor,
  accountId: string,
  id: string,
  input: UpdateWebhookInput,
): Promise<WebhookWire> {
  await findWebhook(executor, accountId, id);
  if (input.phone_filters) await assertOwnPhones(executor, accountId, input.phone_filters);
  if (input.url) await assertReachableUrl(input.url);
  const [row] = await executor
    .update(webhooks)
    .set({
      ...(input.url !== undefined ? { url: input.url } : {}),
      ...(input.events !== undefined ? { events: input.events } : {}),
      ...(input.phone_filters !== undefined ? { phoneFilters: input.phone_filters } : {}),
      ...(input.description !== undefined ? { description: input.description } : {}),
      ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
      ...(input.enabled === true ? { disabledReason: null, failingSince: null } : {}),
      updatedAt: new Date(),
    })
    .where(and(eq(webhooks.id, id), eq(webhooks.accountId, accountId)))
    .returning();
  if (!row) throw notFound('Webhook');
  return presentWebhook(row);
}

/** Deletes the webhook with its delivery log. */
export async function deleteWebhook(executor: Executor, accountId: string, id: string): Promise<void> {
  const deleted = await executor
    .delete(webhooks)
    .where(and(eq(webhooks.id, id), eq(webhooks.accountId, accountId)))
    .returning({ id: webhooks.id });
  if (deleted.length === 0) throw notFound('Webhook');
}

export async function revealSecret(executor: Executor, accountId: string, id: string): Promise<{ secret: string }> {
  const row = await findWebhook(executor, accountId, id);
  return { secret: unsealWebhookSecret(row.secretEncrypted) };
}

/**
 * A new signing secret. The one it replaces keeps signing alongside for 24 h (two signatures in
 * `webhook-signature`), so receivers can switch without missing an event.
 */
export async function rotateSecret(
  executor: Executor,
  accountId: string,
  id: string,
  now: Date = new Date(),
): Promise<{ secret: string }> {
  const current = await findWebhook(executor, accountId, id);
  const secret = generateWebhookSecret();
  const [row] = await executor
    .update(webhooks)
    .set({
      secretEncrypted: sealWebhookSecret(secret),
      previousSecretEncrypted: current.secretEncrypted,
      previousSecretExpiresAt: new Date(now.getTime() + PREVIOUS_SECRET_GRACE_MS),
      updatedAt: now,
    })
    .where(
      and(
        eq(webhooks.id, id),
        eq(webhooks.accountId, accountId),
        // Two rotations at once: only one wins, so no secret is handed out that never signs.
        eq(webhooks.secretEncrypted, current.secretEncrypted),
      ),
    )
    .returning({ id: webhooks.id });
  if (!row) return rotateSecret(executor, accountId, id, now);
  return { secret };
}
