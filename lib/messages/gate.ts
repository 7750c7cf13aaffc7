import { eq, sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import { type AutomationSkipReason, automaticSends, phones } from '@/db/schema';
import { config } from '@/lib/config';
import { DomainError, type ErrorCode } from '@/lib/errors';
import { countryOf, isPremiumRate, toE164 } from '@/lib/phone-number';
import { effectiveSending } from '@/lib/settings/settings';
import { SKIP_REASON_TEXT } from './gate-reasons';
import { type AutomaticOrigin, screensOf } from './origins';
import { sendMessage } from './send';

/**
 * The gate of every SMS the gateway sends on its own, not at an API caller's request: the screen
 * stage of the outbound pipeline (lib/messages/pipeline.ts) for the automatic origins. What each
 * origin must pass is its row of ORIGINS (lib/messages/origins.ts): the recipient's screens
 * (country, premium-rate) read here, the `automatic` caps counted here under locks, the opt-out
 * and the credits in the send's own statement.
 */
export { AUTOMATIC_ORIGINS, type AutomaticOrigin } from './origins';

export type GateRequest = {
  origin: AutomaticOrigin;
  /** The sending account: its settings, phones, counts and credits decide. */
  accountId: string;
  /** The number whose message caused this: AUTO_REPLY_LIMIT counts per this number. */
  counterpart: string;
  /** The sending phone, one of the account's. */
  from: string;
  to: string;
};

export type AutomaticSms = GateRequest & {
  content: string;
  /** The inbound message answered and the action's key: each is sent once (messages_origin_key). */
  cause?: { ruleId: string | null; inboundMessageId: string; key: string };
};

export type GateRefusal = AutomationSkipReason;

export type AutomaticOutcome = { result: 'sent'; messageId: string } | { result: 'skipped'; reason: GateRefusal };

/** How the send's refusals read as the gate's. */
const REFUSED_BECAUSE: Partial<Record<string, GateRefusal>> = {
  INSUFFICIENT_CREDITS: 'no_credit',
  RECIPIENT_OPTED_OUT: 'opted_out',
  RECIPIENT_COUNTRY_NOT_ALLOWED: 'country_not_allowed',
  RECIPIENT_QUOTA_REACHED: 'recipient_quota_reached',
  QUEUE_FULL: 'queue_full',
  FORBIDDEN: 'phone_cannot_send',
  VALIDATION_ERROR: 'phone_cannot_send',
  DUPLICATE_REQUEST: 'already_sent',
};

/**
 * The locks behind the `automatic` caps, held to the end of the caller's transaction: the
 * account's, then the number's, always in this order (after lockAccountEmails when a transaction
 * takes that one). Both caps are counted and the send recorded under them, so concurrent inbound
 * messages cannot both take the last slot.
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
 * Why the account's phone `from` may not text `to`'s country, or null: an allowed_countries list
 * (the phone's group's, else the account's) decides, as for any send; without one, only the
 * countries of the account's own phones, so that a stranger abroad cannot make the account text
 * international numbers.
 */
async function countryRefusal(executor: Executor, request: GateRequest, to: string) {
  const { accountId, from } = request;
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
  if (screensOf(request.origin).country === 'listed') return null;
  const phoneCountries = new Set(own.map((phone) => countryOf(phone.phone)));
  return country && phoneCountries.has(country) ? null : 'country_not_of_phones';
}

/**
 * The screens of the request's origin that read only (not_a_phone_number, country, premium-rate),
 * in that order: the first that refuses answers. The rules' test and the SIM check's choice of
 * sender ask this; a send asks sendAutomaticSms, which adds the caps, opt-outs and credits.
 */
export async function screenRecipient(executor: Executor, request: GateRequest): Promise<GateRefusal | null> {
  const screens = screensOf(request.origin);
  const to = request.to.startsWith('+') ? toE164(request.to) : undefined;
  if (!to) return 'not_a_phone_number';
  if (screens.country !== 'none') {
    const refusal = await countryRefusal(executor, request, to);
    if (refusal) return refusal;
  }
  if (screens.premiumRate && !config.autoSmsPremiumRate && isPremiumRate(to)) return 'premium_rate';
  return null;
}

/** The `automatic` caps, counted under lockCounterpart's locks: null while both have room. */
async function capRefusal(tx: Executor, request: GateRequest): Promise<GateRefusal | null> {
  await lockCounterpart(tx, request.accountId, request.counterpart);
  if ((await automaticSendsInLastHour(tx, request.accountId, request.counterpart)) >= config.autoReplyLimit) {
    return 'limit_reached';
  }
  if ((await accountAutomaticSendsInLastHour(tx, request.accountId)) >= config.autoSmsAccountHourlyLimit) {
    return 'account_limit_reached';
  }
  return null;
}

/**
 * Sends one automatic SMS in the caller's transaction through the screens of its origin, or says
 * which refused it. After the recipient's screens, the `automatic` caps are counted and the send
 * recorded (automatic_sends) in the same transaction, so concurrent inbound messages cannot
 * overshoot them. The send itself is an ordinary one: credits, the opt-out (unless the origin
 * skips that screen) and the sender's right to send; its refusals become the gate's.
 */
export async function sendAutomaticSms(tx: Executor, sms: AutomaticSms): Promise<AutomaticOutcome> {
  const screens = screensOf(sms.origin);
  const refusal = (await screenRecipient(tx, sms)) ?? (screens.caps === 'automatic' ? await capRefusal(tx, sms) : null);
  if (refusal) return { result: 'skipped', reason: refusal };
  let messageId: string;
  try {
    const message = await sendMessage(tx, sms.accountId, {
      from: sms.from,
      to: sms.to,
      content: sms.content,
      origin: sms.origin,
      cause: sms.cause,
    });
    messageId = message.id;
  } catch (error) {
    const reason = error instanceof DomainError ? REFUSED_BECAUSE[error.code] : undefined;
    if (reason) return { result: 'skipped', reason };
    throw error;
  }
  if (screens.caps === 'automatic') {
    await tx.insert(automaticSends).values({ accountId: sms.accountId, counterpart: sms.counterpart, messageId });
  }
  return { result: 'sent', messageId };
}

const REFUSAL_CODE: Partial<Record<GateRefusal, ErrorCode>> = {
  opted_out: 'RECIPIENT_OPTED_OUT',
  country_not_allowed: 'RECIPIENT_COUNTRY_NOT_ALLOWED',
  country_not_of_phones: 'RECIPIENT_COUNTRY_NOT_ALLOWED',
  recipient_quota_reached: 'RECIPIENT_QUOTA_REACHED',
};

/** A refusal of the gate as a request's answer, for producers that answer a person rather than log. */
export function gateRefusalError(what: string, to: string, reason: GateRefusal): DomainError {
  return new DomainError(
    REFUSAL_CODE[reason] ?? 'FORBIDDEN',
    `The ${what} is not sent to ${to}: ${SKIP_REASON_TEXT[reason]} (${reason}).`,
  );
}
