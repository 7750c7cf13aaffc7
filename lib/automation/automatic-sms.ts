import { eq, sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import { type AutomationSkipReason, automaticSends, type MessageOriginKind, phones } from '@/db/schema';
import { config } from '@/lib/config';
import { DomainError } from '@/lib/errors';
import { sendMessage } from '@/lib/messages/send';
import { countryOf, toE164 } from '@/lib/phone-number';
import { effectiveSending } from '@/lib/settings/settings';

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

/**
 * The locks behind AUTO_REPLY_LIMIT and AUTO_SMS_ACCOUNT_HOURLY_LIMIT, held to the end of the
 * caller's transaction: the account's, then the number's, always in this order (after
 * lockAccountEmails when a transaction takes that one). Both limits are counted and the send
 * recorded under them, so concurrent inbound messages cannot both take the last slot.
 */
export async function lockCounterpart(tx: Executor, accountId: string, counterpart: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`auto:${accountId}`}, 0))`);
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

/** Automatic SMS the account sent in the last hour, all counterparts together. */
export async function accountAutomaticSendsInLastHour(executor: Executor, accountId: string): Promise<number> {
  const [row] = await queryRows<{ n: number }>(
    executor,
    sql`select count(*)::int as n from automatic_sends
        where account_id = ${accountId}::uuid and at > now() - interval '1 hour'`,
  );
  return Number(row?.n ?? 0);
}

/**
 * Why an automatic SMS from the account's phone `from` may not reach `to`'s country, or null. An
 * allowed_countries list (the phone's group's, else the account's) decides, as for any send;
 * without one, automatic SMS reach only the countries of the account's own phones, so that a
 * stranger abroad cannot make the account text premium-rate or international numbers.
 */
export async function automaticCountryRefusal(
  executor: Executor,
  accountId: string,
  from: string,
  to: string,
): Promise<'country_not_allowed' | 'country_not_of_phones' | null> {
  const own = await executor
    .select({ phone: phones.phone, groupId: phones.groupId })
    .from(phones)
    .where(eq(phones.accountId, accountId));
  const sender = own.find((phone) => phone.phone === from);
  // A number that is no phone of the account: the send refuses it.
  if (!sender) return null;
  const country = countryOf(to);
  const { allowed_countries: listed } = await effectiveSending(executor, accountId, sender.groupId);
  if (listed) return country && listed.includes(country) ? null : 'country_not_allowed';
  const phoneCountries = new Set(own.map((phone) => countryOf(phone.phone)));
  return country && phoneCountries.has(country) ? null : 'country_not_of_phones';
}

/**
 * Sends one automatic SMS in the caller's transaction, or says why not. The loop and abuse guard:
 * only to the countries automaticCountryRefusal allows; under lockCounterpart's locks, at most
 * AUTO_REPLY_LIMIT automatic SMS per counterpart and AUTO_SMS_ACCOUNT_HOURLY_LIMIT per account in
 * any hour, counted and recorded in the same transaction as the send, so concurrent inbound
 * messages cannot overshoot them. The send is an ordinary one (credit, opt-out, country rules);
 * its refusals become skip reasons. `messages_origin_key` makes each action once per inbound
 * message, whatever retries or resends do.
 */
export async function sendAutomaticSms(tx: Executor, sms: AutomaticSms): Promise<AutomaticOutcome> {
  const to = toE164(sms.to);
  if (!to || !sms.to.startsWith('+')) return { result: 'skipped', reason: 'not_a_phone_number' };
  const countryRefusal = await automaticCountryRefusal(tx, sms.accountId, sms.from, to);
  if (countryRefusal) return { result: 'skipped', reason: countryRefusal };
  await lockCounterpart(tx, sms.accountId, sms.counterpart);
  if ((await automaticSendsInLastHour(tx, sms.accountId, sms.counterpart)) >= config.autoReplyLimit) {
    return { result: 'skipped', reason: 'limit_reached' };
  }
  if ((await accountAutomaticSendsInLastHour(tx, sms.accountId)) >= config.autoSmsAccountHourlyLimit) {
    return { result: 'skipped', reason: 'account_limit_reached' };
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
