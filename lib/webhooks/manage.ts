import { and, count, eq, inArray, sql } from 'drizzle-orm';
import { type Executor, queryRows, type Transaction } from '@/db';
import { webhooks } from '@/db/schema';
import { recordAudit } from '@/lib/audit/record';
import { assertBelowPlanLimit, lockAccountPlan } from '@/lib/billing-plans/limits';
import { notFound, validationError } from '@/lib/errors';
import { keysetPage, type Page, type PageQuery, toPage } from '@/lib/pagination';
import { withTransaction } from '@/lib/transactions';
import { detachMessagesFromWebhooks } from './detach';
import { webhookFormat } from './formats';
import { presentWebhook, type WebhookRow } from './present';
import type { CreateWebhookInput, UpdateWebhookInput } from './schemas';
import { generateWebhookSecret, PREVIOUS_SECRET_GRACE_MS, sealWebhookSecret, unsealWebhookSecret } from './signing';
import { assertOwnPhones, assertReachableUrl } from './validate';

type WebhookWire = ReturnType<typeof presentWebhook>;

/** The kinds an account creates and manages; a `callback` is a send's status_callback_url. */
const MANAGED_KINDS = ['endpoint', 'smsgate', 'twilio'] as const;

export async function findWebhook(executor: Executor, accountId: string, id: string): Promise<WebhookRow> {
  const [row] = await executor
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.id, id), eq(webhooks.accountId, accountId), inArray(webhooks.kind, MANAGED_KINDS)));
  if (!row) throw notFound('Webhook');
  return row;
}

/**
 * Throws PLAN_LIMIT_REACHED when the account already has its plan's number of webhooks. Takes the
 * account's plan lock (lib/billing-plans/limits.ts) first: concurrent creates count one after another.
 */
export async function assertRoomForWebhook(tx: Transaction, accountId: string): Promise<void> {
  const plan = await lockAccountPlan(tx, accountId);
  const [counted] = await tx
    .select({ value: count() })
    .from(webhooks)
    .where(and(eq(webhooks.accountId, accountId), inArray(webhooks.kind, MANAGED_KINDS)));
  assertBelowPlanLimit(plan, 'webhooks', counted?.value ?? 0);
}

/** Replies answer inbound messages: only a webhook that receives them can send one. */
function assertRepliesReceivable(acceptReplies: boolean, events: readonly string[]): void {
  if (acceptReplies && !events.includes('message.received')) {
    throw validationError('accept_replies', 'only a webhook subscribed to message.received can accept replies');
  }
}

/** Creates a webhook with a fresh signing secret, shown in the answer. */
export async function createWebhook(
  executor: Executor,
  accountId: string,
  input: CreateWebhookInput,
): Promise<WebhookWire & { secret: string }> {
  const phoneFilters = input.phone_filters ?? [];
  const twilio = input.format === 'twilio';
  const kind = twilio ? 'twilio' : 'endpoint';
  // What the format can carry and needs (a Twilio-format webhook: its events, the Auth Token).
  await webhookFormat(kind).assertUsable?.(executor, accountId, input.events);
  const acceptReplies = twilio ? input.events.includes('message.received') : (input.accept_replies ?? false);
  assertRepliesReceivable(acceptReplies, input.events);
  await assertOwnPhones(executor, accountId, phoneFilters);
  await assertReachableUrl(input.url);
  const secret = generateWebhookSecret();
  return withTransaction(executor, async (tx) => {
    await assertRoomForWebhook(tx, accountId);
    const [row] = await tx
      .insert(webhooks)
      .values({
        accountId,
        url: input.url,
        kind,
        events: input.events,
        phoneFilters,
        description: input.description ?? null,
        acceptReplies,
        secretEncrypted: sealWebhookSecret(secret),
      })
      .returning();
    if (!row) throw new Error('createWebhook: insert returned no row');
    await recordAudit(tx, {
      accountId,
      action: 'webhook.created',
      target: row.id,
      details: { url: row.url, events: row.events, phone_filters: row.phoneFilters },
    });
    return { ...presentWebhook(row), secret };
  });
}

export async function listWebhooks(executor: Executor, accountId: string, page: PageQuery): Promise<Page<WebhookWire>> {
  const keyset = keysetPage(page, { createdAt: webhooks.createdAt, id: webhooks.id, idType: 'uuid' });
  const rows = await executor
    .select()
    .from(webhooks)
    .where(and(eq(webhooks.accountId, accountId), inArray(webhooks.kind, MANAGED_KINDS), keyset.after))
    .orderBy(...keyset.orderBy)
    .limit(keyset.limit);
  const health = await healthOf(
    executor,
    accountId,
    rows.map((row) => row.id),
  );
  return toPage(rows, page.limit, (row) => ({ ...presentWebhook(row), health: health.get(row.id) ?? NO_HEALTH }));
}

export async function getWebhook(executor: Executor, accountId: string, id: string) {
  const row = await findWebhook(executor, accountId, id);
  const health = await healthOf(executor, accountId, [row.id]);
  return { ...presentWebhook(row), health: health.get(row.id) ?? NO_HEALTH };
}

export type WebhookHealth = {
  last_attempt_at: string | null;
  last_status_code: number | null;
  attempts_24h: number;
  failure_rate_24h: number | null;
};

const NO_HEALTH: WebhookHealth = {
  last_attempt_at: null,
  last_status_code: null,
  attempts_24h: 0,
  failure_rate_24h: null,
};

/**
 * How each webhook has been doing: its last attempt (within a week) and the share of attempts
 * in the last 24 hours that got no 2xx. One aggregate over the webhooks of a page.
 */
async function healthOf(executor: Executor, accountId: string, ids: string[]): Promise<Map<string, WebhookHealth>> {
  if (ids.length === 0) return new Map();
  const rows = await queryRows<{
    webhook_id: string;
    last_attempt_at: string | Date | null;
    last_status_code: number | null;
    attempts: number;
    failed: number;
  }>(
    executor,
    sql`
      select d.webhook_id, max(a.attempted_at) as last_attempt_at,
        (array_agg(a.status_code order by a.attempted_at desc, a.id desc))[1] as last_status_code,
        count(*) filter (where a.attempted_at > now() - interval '1 day')::int as attempts,
        count(*) filter (where a.attempted_at > now() - interval '1 day'
          and (a.status_code is null or a.status_code not between 200 and 299))::int as failed
      from webhook_deliveries d join webhook_attempts a on a.account_id = d.account_id and a.delivery_id = d.id
      where d.account_id = ${accountId}::uuid and d.webhook_id = any(${`{${ids.join(',')}}`}::uuid[])
        and d.created_at > now() - interval '7 days'
      group by d.webhook_id
    `,
  );
  return new Map(
    rows.map((row) => [
      row.webhook_id,
      {
        last_attempt_at: row.last_attempt_at ? new Date(row.last_attempt_at).toISOString() : null,
        last_status_code: row.last_status_code === null ? null : Number(row.last_status_code),
        attempts_24h: Number(row.attempts),
        failure_rate_24h: Number(row.attempts) > 0 ? Number(row.failed) / Number(row.attempts) : null,
      },
    ]),
  );
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
  const existing = await findWebhook(executor, accountId, id);
  const fields = Object.keys(input).filter((key) => key !== 'enabled');
  if (fields.length > 0) assertStandardFormat(existing, fields[0] as string);
  if (input.events) await webhookFormat(existing.kind).assertUsable?.(executor, accountId, input.events);
  if (existing.kind === 'twilio' && input.accept_replies !== undefined) {
    throw validationError('accept_replies', 'a twilio-format webhook always reads TwiML answers to inbound messages');
  }
  const acceptReplies =
    existing.kind === 'twilio'
      ? (input.events ?? existing.events).includes('message.received')
      : (input.accept_replies ?? existing.acceptReplies);
  assertRepliesReceivable(acceptReplies, input.events ?? existing.events);
  if (input.phone_filters) await assertOwnPhones(executor, accountId, input.phone_filters);
  if (input.url) await assertReachableUrl(input.url);
  const [row] = await withTransaction(executor, async (tx) => {
    const changed = await tx
      .update(webhooks)
      .set({
        ...(input.url !== undefined ? { url: input.url } : {}),
        ...(input.events !== undefined ? { events: input.events } : {}),
        ...(input.phone_filters !== undefined ? { phoneFilters: input.phone_filters } : {}),
        ...(input.description !== undefined ? { description: input.description } : {}),
        ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
        ...(input.accept_replies !== undefined || existing.kind === 'twilio' ? { acceptReplies } : {}),
        ...(input.enabled === true ? { disabledReason: null, failingSince: null } : {}),
        updatedAt: new Date(),
      })
      .where(and(eq(webhooks.id, id), eq(webhooks.accountId, accountId)))
      .returning();
    if (changed.length > 0) {
      await recordAudit(tx, {
        accountId,
        action: 'webhook.updated',
        target: id,
        details: { changed: Object.keys(input) },
      });
    }
    return changed;
  });
  if (!row) throw notFound('Webhook');
  return presentWebhook(row);
}

/** Deletes the webhook with its delivery log. */
export async function deleteWebhook(executor: Executor, accountId: string, id: string): Promise<void> {
  await withTransaction(executor, async (tx) => {
    await detachMessagesFromWebhooks(tx, accountId, [id]);
    const [deleted] = await tx
      .delete(webhooks)
      .where(and(eq(webhooks.id, id), eq(webhooks.accountId, accountId)))
      .returning({ id: webhooks.id, url: webhooks.url });
    if (!deleted) throw notFound('Webhook');
    await recordAudit(tx, { accountId, action: 'webhook.deleted', target: id, details: { url: deleted.url } });
  });
}

/**
 * An SMSGate-format webhook is signed with the account's SMSGate signing key and shaped by the
 * integrator API: it has no secret of its own, and only pausing it is done here.
 */
function assertStandardFormat(row: WebhookRow, field: string): void {
  if (row.kind === 'smsgate') {
    throw validationError(
      field,
      'an SMSGate-format webhook is managed through /api/3rdparty/v1/webhooks and signed with the key in its settings (webhooks.signing_key)',
    );
  }
}

/** A Twilio-format webhook is signed with the account's Auth Token: it has no secret of its own to show or rotate. */
function assertOwnSecret(row: WebhookRow): void {
  assertStandardFormat(row, 'id');
  if (row.kind === 'twilio') {
    throw validationError(
      'id',
      'a twilio-format webhook is signed with the account’s Twilio Auth Token, not a secret of its own',
    );
  }
}

export async function revealSecret(executor: Executor, accountId: string, id: string): Promise<{ secret: string }> {
  const row = await findWebhook(executor, accountId, id);
  assertOwnSecret(row);
  await recordAudit(executor, { accountId, action: 'webhook.secret_revealed', target: id });
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
  assertOwnSecret(current);
  const secret = generateWebhookSecret();
  const rotated = await withTransaction(executor, async (tx) => {
    const [row] = await tx
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
    if (row) await recordAudit(tx, { accountId, action: 'webhook.secret_rotated', target: id });
    return Boolean(row);
  });
  if (!rotated) return rotateSecret(executor, accountId, id, now);
  return { secret };
}
