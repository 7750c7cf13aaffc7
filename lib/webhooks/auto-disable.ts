import { and, eq, lte } from 'drizzle-orm';
import type { Database, Transaction } from '@/db';
import { accounts, webhooks } from '@/db/schema';
import { config } from '@/lib/config';
import { sendEmail } from '@/lib/email/send';
import { log } from '@/lib/log';
import { AUTO_DISABLE_AFTER_MS } from './retry-policy';

export type DisabledWebhook = { webhookId: string; accountId: string; url: string; reason: string };

/**
 * At a final failure: a webhook that has failed continuously for a day is disabled. The guarded
 * update makes exactly one worker do it (and tell the owner), however many fail at once.
 */
export async function disableFailingWebhook(
  tx: Transaction,
  webhook: { accountId: string; id: string },
  now: Date,
  lastError: string | null,
): Promise<DisabledWebhook | undefined> {
  const cutoff = new Date(now.getTime() - AUTO_DISABLE_AFTER_MS);
  const [current] = await tx
    .select({ failingSince: webhooks.failingSince })
    .from(webhooks)
    .where(and(eq(webhooks.accountId, webhook.accountId), eq(webhooks.id, webhook.id)));
  if (!current?.failingSince || current.failingSince > cutoff) return undefined;
  const reason =
    `Disabled automatically at ${now.toISOString()}: every delivery has failed since ` +
    `${current.failingSince.toISOString()}${lastError ? ` (last error: ${lastError.slice(0, 200)})` : ''}.`;
  const [row] = await tx
    .update(webhooks)
    .set({ enabled: false, disabledReason: reason, updatedAt: now })
    .where(
      and(
        eq(webhooks.accountId, webhook.accountId),
        eq(webhooks.id, webhook.id),
        eq(webhooks.enabled, true),
        lte(webhooks.failingSince, cutoff),
      ),
    )
    .returning({ accountId: webhooks.accountId, url: webhooks.url });
  return row ? { webhookId: webhook.id, accountId: row.accountId, url: row.url, reason } : undefined;
}

/** Emails the account; a mail failure is logged, never undoes the disable. */
export async function tellOwnerWebhookDisabled(db: Database, disabled: DisabledWebhook): Promise<void> {
  try {
    const [account] = await db
      .select({ email: accounts.email })
      .from(accounts)
      .where(eq(accounts.id, disabled.accountId));
    if (!account) return;
    const settings = config.appUrl
      ? `the settings panel (Webhooks) at ${config.appUrl}`
      : 'the settings panel (Webhooks)';
    await sendEmail(db, {
      to: account.email,
      subject: 'Simgate: a webhook was disabled after a day of failed deliveries',
      text: [
        `Your webhook ${disabled.url} was disabled.`,
        '',
        disabled.reason,
        '',
        'Deliveries already queued wait; new events are not queued while it is disabled.',
        `Fix the receiver, then enable the webhook again in ${settings} or with`,
        `PATCH /api/v1/webhooks/${disabled.webhookId} {"enabled": true}. Failed deliveries can be resent from there.`,
      ].join('\n'),
    });
  } catch (error) {
    log.error({ err: error, webhookId: disabled.webhookId }, 'could not email the owner of a disabled webhook');
  }
  log.warn(
    { webhookId: disabled.webhookId, accountId: disabled.accountId },
    'webhook disabled after a day of failures',
  );
}
