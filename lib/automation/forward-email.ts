import { sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import type { AutomationSkipReason } from '@/db/schema';
import { config } from '@/lib/config';
import { isForwardingAllowed } from '@/lib/email/addresses';
import { enqueueEmail } from '@/lib/email/outbox';
import type { Email } from '@/lib/email/send';
import { automaticSendsInLastHour, lockCounterpart } from '@/lib/messages/pipeline';

export type ForwardEmail = {
  accountId: string;
  /** The number whose inbound message caused this: AUTO_REPLY_LIMIT counts per this number. */
  counterpart: string;
  inboundMessageId: string;
  email: Email;
};

export type ForwardOutcome = { result: 'sent'; emailId: string } | { result: 'skipped'; reason: AutomationSkipReason };

/**
 * The lock behind AUTO_EMAIL_ACCOUNT_HOURLY_LIMIT, held to the end of the caller's transaction.
 * Taken before any other automation lock of the transaction (runInboundAutomation takes it before
 * its first action), so two inbound messages can never wait for each other's locks.
 */
export async function lockAccountEmails(tx: Executor, accountId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`auto-email:${accountId}`}, 0))`);
}

/** Forward emails of the account in the last hour (alert emails, which carry no inbound message, are not forwards). */
export async function forwardEmailsInLastHour(executor: Executor, accountId: string): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    executor,
    sql`select count(*)::int as n from email_outbox
        where account_id = ${accountId}::uuid and inbound_message_id is not null
          and created_at > now() - interval '1 hour'`,
  );
  return Number(row?.n ?? 0);
}

/**
 * Why a forward to `to` would be skipped now, if it would: the address is not confirmed, the
 * sender's number has used its AUTO_REPLY_LIMIT (SMS and emails together), or the account its
 * AUTO_EMAIL_ACCOUNT_HOURLY_LIMIT. Reads only; the caller holds the locks when it acts on it.
 */
export async function forwardSkipReason(
  executor: Executor,
  accountId: string,
  counterpart: string,
  to: string,
): Promise<AutomationSkipReason | undefined> {
  if (!(await isForwardingAllowed(executor, accountId, to))) return 'email_not_confirmed';
  if ((await automaticSendsInLastHour(executor, accountId, counterpart)) >= config.autoReplyLimit) {
    return 'limit_reached';
  }
  if ((await forwardEmailsInLastHour(executor, accountId)) >= config.autoEmailAccountHourlyLimit) {
    return 'email_limit_reached';
  }
  return undefined;
}

/**
 * Queues one forward email in the caller's transaction (the outbox sends it after the commit,
 * lib/email/outbox.ts), or says why not. Counted under the account's and the number's locks in
 * the same transaction as the enqueue, so concurrent inbound messages cannot overshoot a limit.
 */
export async function queueForwardEmail(tx: Executor, forward: ForwardEmail): Promise<ForwardOutcome> {
  await lockAccountEmails(tx, forward.accountId);
  await lockCounterpart(tx, forward.accountId, forward.counterpart);
  const reason = await forwardSkipReason(tx, forward.accountId, forward.counterpart, forward.email.to);
  if (reason) return { result: 'skipped', reason };
  const emailId = await enqueueEmail(tx, {
    ...forward.email,
    accountId: forward.accountId,
    inboundMessageId: forward.inboundMessageId,
    counterpart: forward.counterpart,
  });
  return { result: 'sent', emailId };
}
