import { eq, sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import { accounts } from '@/db/schema';
import { config } from '@/lib/config';
import { enqueueEmail } from '@/lib/email/outbox';
import { emitEvent } from '@/lib/events/emit';
import { log } from '@/lib/log';
import { type AlertRow, alertTitle, presentAlert } from './present';
import { alertSubjectPath } from './subject-path';

export type AlertChange = 'raised' | 'resolved';

/**
 * Takes the account's alert-email lock, held to the end of the caller's transaction: whoever
 * counts under it sees every alert email committed before, so evaluators on several instances
 * never send more than ALERT_EMAILS_PER_HOUR between them.
 */
async function lockAlertEmails(tx: Executor, accountId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`alert-email:${accountId}`}, 0))`);
}

/** Alert emails of the account in the last hour: the outbox rows that carry no inbound message. */
async function alertEmailsInLastHour(tx: Executor, accountId: string): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    tx,
    sql`select count(*)::int as n from email_outbox
        where account_id = ${accountId}::uuid and inbound_message_id is null
          and created_at > now() - interval '1 hour'`,
  );
  return Number(row?.n ?? 0);
}

function emailText(alert: ReturnType<typeof presentAlert>, change: AlertChange): { subject: string; text: string } {
  const title = alertTitle(alert);
  const link = config.appUrl ? new URL(alertSubjectPath(alert.subject), config.appUrl).toString() : undefined;
  const lines = [
    change === 'raised' ? `Alert: ${title}.` : `Resolved, the condition ended: ${title}.`,
    '',
    ...Object.entries(alert.values).map(([key, value]) => `${key.replaceAll('_', ' ')}: ${String(value)}`),
    `raised at: ${alert.raised_at}`,
    ...(alert.resolved_at ? [`resolved at: ${alert.resolved_at}`] : []),
    '',
    ...(link ? [`See ${link}`] : []),
    'Thresholds, or turning an alert off: Settings → Alerts in the dashboard, or PATCH /api/v1/settings/alerts.',
  ];
  return {
    subject: change === 'raised' ? `Simgate alert: ${title}` : `Simgate alert resolved: ${title}`,
    text: lines.join('\n'),
  };
}

/**
 * Tells the account about an alert that was just raised or resolved, in the transaction that did
 * it: the `alert.raised`/`alert.resolved` event (and its webhook deliveries), and an email to the
 * account's address unless ALERT_EMAILS_PER_HOUR is used up. Both go out only if it commits.
 */
export async function notifyAlert(tx: Executor, accountId: string, row: AlertRow, change: AlertChange): Promise<void> {
  const alert = presentAlert(row);
  await emitEvent(tx, {
    accountId,
    type: change === 'raised' ? 'alert.raised' : 'alert.resolved',
    phone: alert.subject.type === 'phone' ? alert.subject.name : null,
    data: alert,
  });
  const limit = config.alertEmailsPerHour;
  if (limit === 0) return;
  await lockAlertEmails(tx, accountId);
  if ((await alertEmailsInLastHour(tx, accountId)) >= limit) {
    log.info({ accountId, alertId: alert.id, change }, 'alert email skipped: ALERT_EMAILS_PER_HOUR reached');
    return;
  }
  const [account] = await tx.select({ email: accounts.email }).from(accounts).where(eq(accounts.id, accountId));
  if (!account) return;
  await enqueueEmail(tx, { accountId, to: account.email, ...emailText(alert, change) });
}
