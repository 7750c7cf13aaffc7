import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { accounts, type EventType, webhooks } from '@/db/schema';
import { recordAudit } from '@/lib/audit/record';
import { DomainError, validationError } from '@/lib/errors';
import { withTransaction } from '@/lib/transactions';
import { generateWebhookSecret, PREVIOUS_SECRET_GRACE_MS, sealWebhookSecret } from './signing';
import { assertReachableUrl } from './validate';

/** The state events a message's status_callback_url receives. */
export const CALLBACK_EVENTS: EventType[] = [
  'message.sent',
  'message.delivered',
  'message.failed',
  'message.expired',
  'message.cancelled',
];

/**
 * A new callback secret for the account, shown once: every status callback is signed with it (and,
 * for 24 h, with the one it replaces too, as a webhook rotation does).
 */
export async function rotateCallbackSecret(
  executor: Executor,
  accountId: string,
  now: Date = new Date(),
): Promise<{ secret: string }> {
  const secret = generateWebhookSecret();
  const sealed = sealWebhookSecret(secret);
  await withTransaction(executor, async (tx) => {
    await tx.update(accounts).set({ callbackSecretEncrypted: sealed }).where(eq(accounts.id, accountId));
    await tx
      .update(webhooks)
      .set({
        previousSecretEncrypted: sql`${webhooks.secretEncrypted}`,
        previousSecretExpiresAt: new Date(now.getTime() + PREVIOUS_SECRET_GRACE_MS),
        secretEncrypted: sealed,
        updatedAt: now,
      })
      .where(and(eq(webhooks.accountId, accountId), eq(webhooks.kind, 'callback')));
    await recordAudit(tx, { accountId, action: 'webhook.secret_rotated', target: 'status-callbacks' });
  });
  return { secret };
}

/**
 * The checks a send's `status_callback_url` passes, a dry run's as well as a real one's: https, the
 * webhooks' SSRF rules (400 naming the field), and the account's callback secret, which it returns
 * sealed. Writes nothing.
 */
export async function checkCallbackUrl(executor: Executor, accountId: string, url: string): Promise<string> {
  try {
    await assertReachableUrl(url);
  } catch (error) {
    if (error instanceof DomainError && error.code === 'VALIDATION_ERROR') {
      throw validationError('status_callback_url', error.errors?.[0]?.message ?? error.detail);
    }
    throw error;
  }
  const [account] = await executor
    .select({ secret: accounts.callbackSecretEncrypted })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  if (!account?.secret) {
    throw validationError(
      'status_callback_url',
      'create the account’s callback secret first (POST /api/v1/webhooks/callback-secret): callbacks are signed with it',
    );
  }
  return account.secret;
}

/**
 * The delivery target for a send's `status_callback_url`, once `checkCallbackUrl` accepts it: one
 * row per URL (sends with the same URL share it). Delivered by the webhook worker like any webhook.
 */
export async function callbackTarget(executor: Executor, accountId: string, url: string): Promise<string> {
  const secret = await checkCallbackUrl(executor, accountId, url);
  return upsertCallbackWebhook(executor, accountId, { url, kind: 'callback', secretEncrypted: secret });
}

/** The partial unique index each kind of callback row is kept one per URL by (db/schema/webhooks.ts). */
const ONE_PER_URL = {
  callback: sql`${webhooks.kind} = 'callback'`,
  twilio_callback: sql`${webhooks.kind} = 'twilio_callback'`,
};

/**
 * The account's callback row for this URL, created or enabled again, and its id. The caller has
 * checked the URL; the row receives the state events of the messages that name it.
 */
export async function upsertCallbackWebhook(
  executor: Executor,
  accountId: string,
  target: { url: string; kind: keyof typeof ONE_PER_URL; secretEncrypted: string },
): Promise<string> {
  const [row] = await executor
    .insert(webhooks)
    .values({ accountId, events: CALLBACK_EVENTS, ...target })
    .onConflictDoUpdate({
      target: [webhooks.accountId, webhooks.url],
      targetWhere: ONE_PER_URL[target.kind],
      set: { enabled: true },
    })
    .returning({ id: webhooks.id });
  if (!row) throw new Error('upsertCallbackWebhook: upsert returned no row');
  return row.id;
}
