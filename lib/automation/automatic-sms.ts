import { sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import { type AutomationSkipReason, automaticSends, type MessageOriginKind } from '@/db/schema';
import { config } from '@/lib/config';
import { DomainError } from '@/lib/errors';
import { sendMessage } from '@/lib/messages/send';
import { toE164 } from '@/lib/phone-number';

export type AutomaticSms = {
  accountId: string;
  /** The number whose inbound message caused this: AUTO_REPLY_LIMIT counts per this number. */
  counterpart: string;
  /** The receiving phone, which sends. */
  from: string;
  to: string;
  content: string;
  origin: { kind: MessageOriginKind; ruleId: string | null; inboundMessageId: string; key: string };
};

export type AutomaticOutcome =
  | { result: 'sent'; messageId: string }
  | { result: 'skipped'; reason: AutomationSkipReason };

/** How the send's refusals read in an automation record. */
const SKIPPED_BECAUSE: Partial<Record<string, AutomationSkipReason>> = {
  INSUFFICIENT_CREDITS: 'no_credit',
  RECIPIENT_OPTED_OUT: 'opted_out',
  RECIPIENT_COUNTRY_NOT_ALLOWED: 'country_not_allowed',
  FORBIDDEN: 'phone_cannot_send',
  VALIDATION_ERROR: 'phone_cannot_send',
  DUPLICATE_REQUEST: 'already_sent',
};

/** A lock per account and counterpart number, held to the end of the caller's transaction. */
export async function lockCounterpart(tx: Executor, accountId: string, counterpart: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`auto:${accountId}:${counterpart}`}, 0))`);
}

/** Automatic SMS and forward emails (email_outbox) caused by this number in the last hour. */
export async function automaticSendsInLastHour(
  executor: Executor,
  accountId: string,
  counterpart: string,
): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    executor,
    sql`select (select count(*) from automatic_sends
                where account_id = ${accountId}::uuid and counterpart = ${counterpart}::text
                  and at > now() - interval '1 hour')
             + (select count(*) from email_outbox
                where account_id = ${accountId}::uuid and counterpart = ${counterpart}::text
                  and created_at > now() - interval '1 hour')
             as n`,
  );
  return Number(row?.n ?? 0);
}

/**
 * Sends one automatic SMS in the caller's transaction, or says why not. The loop and abuse guard:
 * under a lock per account and counterpart, at most AUTO_REPLY_LIMIT automatic SMS per counterpart
 * in any hour, counted and recorded in the same transaction as the send, so concurrent inbound
 * messages cannot overshoot it. The send is an ordinary one (credit, opt-out, country rules);
 * its refusals become skip reasons. `messages_origin_key` makes each action once per inbound
 * message, whatever retries or resends do.
 */
export async function sendAutomaticSms(tx: Executor, sms: AutomaticSms): Promise<AutomaticOutcome> {
  const to = toE164(sms.to);
  if (!to || !sms.to.startsWith('+')) return { result: 'skipped', reason: 'not_a_phone_number' };
  await lockCounterpart(tx, sms.accountId, sms.counterpart);
  if ((await automaticSendsInLastHour(tx, sms.accountId, sms.counterpart)) >= config.autoReplyLimit) {
    return { result: 'skipped', reason: 'limit_reached' };
  }
  let messageId: string;
  try {
    const message = await sendMessage(tx, sms.accountId, {
      from: sms.from,
      to,
      content: sms.content,
      origin: sms.origin,
    });
    messageId = message.id;
  } catch (error) {
    const reason = error instanceof DomainError ? SKIPPED_BECAUSE[error.code] : undefined;
    if (reason) return { result: 'skipped', reason };
    throw error;
  }
  await tx.insert(automaticSends).values({ accountId: sms.accountId, counterpart: sms.counterpart, messageId });
  return { result: 'sent', messageId };
}
