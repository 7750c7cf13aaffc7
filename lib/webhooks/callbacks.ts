import { and, count, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { accounts, type EventType, webhooks } from '@/db/schema';
import { recordAudit } from '@/lib/audit/record';
import { config } from '@/lib/config';
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
  return statusCallbackTarget(executor, { accountId, url, kind: 'callback', secretEncrypted: secret });
}

export type StatusCallbackKind = 'callback' | 'twilio_callback';

/**
 * The row of one status-callback URL of an account, created on its first use. Each use marks it used
 * now, so the retention sweep, which deletes targets no live message or pending delivery needs
 * (lib/retention/sweep.ts), leaves it alone for a while. A new URL counts against
 * STATUS_CALLBACK_URLS_PER_ACCOUNT under the account's lock, so concurrent sends cannot pass the cap:
 * past it, a 400 naming `status_callback_url`, before the send moves any credit.
 */
export async function statusCallbackTarget(
  executor: Executor,
  target: { accountId: string; url: string; kind: StatusCallbackKind; secretEncrypted: string },
): Promise<string> {
  const used = await markUsed(executor, target);
  if (used) return used;
  return withTransaction(executor, async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`status-callbacks:${target.accountId}`}, 0))`);
    const raced = await markUsed(tx, target);
    if (raced) return raced;
    const [live] = await tx
      .select({ value: count() })
      .from(webhooks)
      .where(and(eq(webhooks.accountId, target.accountId), inArray(webhooks.kind, STATUS_CALLBACK_KINDS)));
    const cap = config.statusCallbackUrlsPerAccount;
    if ((live?.value ?? 0) >= cap) {
      throw validationError(
        'status_callback_url',
        `the account already has ${cap} status-callback URLs in use: reuse one of them, or send this one once earlier messages have finished`,
      );
    }
    const [row] = await tx
      .insert(webhooks)
      .values({ ...target, events: CALLBACK_EVENTS })
      .onConflictDoNothing()
      .returning({ id: webhooks.id });
    if (!row) throw new Error('statusCallbackTarget: insert returned no row');
    return row.id;
  });
}

const STATUS_CALLBACK_KINDS: StatusCallbackKind[] = ['callback', 'twilio_callback'];

/** The target's id when it exists (enabled again, and marked used now). */
async function markUsed(
  executor: Executor,
  target: { accountId: string; url: string; kind: StatusCallbackKind },
): Promise<string | undefined> {
  const [row] = await executor
    .update(webhooks)
    .set({ enabled: true, updatedAt: sql`now()` })
    .where(and(eq(webhooks.accountId, target.accountId), eq(webhooks.kind, target.kind), eq(webhooks.url, target.url)))
    .returning({ id: webhooks.id });
  return row?.id;
}
