import { and, eq, inArray, like } from 'drizzle-orm';
import type { Executor } from '@/db';
import { accounts, devices, messages, phones } from '@/db/schema';
import { DomainError } from '@/lib/errors';
import { log } from '@/lib/log';
import { cancelMessage } from '@/lib/messages/cancel';
import { SKIP_REASON_TEXT } from '@/lib/messages/gate-reasons';
import { type GateRefusal, submitAutomatic } from '@/lib/messages/pipeline';
import { toE164 } from '@/lib/phone-number';
import { smsConfig } from './config';
import type { Sms, SmsSender } from './service-sms';

class SenderMisconfigured extends Error {}

/** Refusals that say nothing of the recipient: the operator's to fix, the caller may retry. */
const OPERATOR_MUST_FIX = new Set<GateRefusal>(['no_credit', 'phone_cannot_send', 'already_sent', 'queue_full']);

/**
 * The operator account: the one with VERIFICATION_SENDER_EMAIL, which must have the sender number
 * as a phone bound to an activated device. Anyone may add any number as a phone (no SIM proof),
 * so neither the number alone nor a phone without its device could name the operator.
 */
async function operatorAccountId(executor: Executor, senderPhone: string): Promise<string> {
  const email = smsConfig.senderEmail;
  if (!email) {
    throw new SenderMisconfigured(
      "VERIFICATION_SENDER_PHONE is set without VERIFICATION_SENDER_EMAIL: set it to the operator account's email.",
    );
  }
  // The account first, by its email (the directory), then its phone by that account: on a database
  // sharded by account, one shard.
  const [account] = await executor.select({ id: accounts.id }).from(accounts).where(eq(accounts.email, email));
  const [sender] = account
    ? await executor
        .select({ accountId: phones.accountId })
        .from(phones)
        .innerJoin(devices, and(eq(devices.id, phones.deviceId), eq(devices.accountId, phones.accountId)))
        .where(and(eq(phones.accountId, account.id), eq(phones.phone, senderPhone), eq(devices.status, 'activated')))
        .limit(1)
    : [];
  if (!sender) {
    throw new SenderMisconfigured(
      `The account ${email} (VERIFICATION_SENDER_EMAIL) has no phone ${senderPhone} (VERIFICATION_SENDER_PHONE) with an activated device.`,
    );
  }
  return sender.accountId;
}

/**
 * Sends service SMS from the operator's phone through the gate of automatic SMS, under the
 * operator account's rules (its allowed countries, opt-outs, premium-rate numbers), charged to
 * its phone's group like any message: a refusal of those screens is answered to the caller. What
 * the operator must fix (misconfiguration, no credits, a phone that cannot send) is logged for the
 * operator and answered as 503 to the caller, whose transaction rolls back.
 */
export const gatewaySender: SmsSender = {
  async send(executor: Executor, sms: Sms) {
    const configured = smsConfig.senderPhone ?? '';
    try {
      const from = toE164(configured);
      if (!from) throw new SenderMisconfigured(`VERIFICATION_SENDER_PHONE "${configured}" is not an E.164 number.`);
      const accountId = await operatorAccountId(executor, from);
      const outcome = await submitAutomatic(executor, {
        origin: sms.origin,
        accountId,
        counterpart: sms.to,
        from,
        to: sms.to,
        content: sms.text,
      });
      if (outcome.result === 'sent') return null;
      if (!OPERATOR_MUST_FIX.has(outcome.reason)) return outcome.reason;
      throw new SenderMisconfigured(`The operator's phone ${from} cannot send: ${SKIP_REASON_TEXT[outcome.reason]}.`);
    } catch (error) {
      if (!(error instanceof SenderMisconfigured || error instanceof DomainError)) throw error;
      log.error({ err: error, to: sms.to }, 'verification SMS could not be sent');
      throw new DomainError('SERVICE_UNAVAILABLE', 'The verification SMS could not be sent. Try again shortly.', {
        headers: { 'Retry-After': '30' },
      });
    }
  },
};

/**
 * Cancels, and so refunds, the operator's service SMS to `to` not sent yet whose text starts with
 * `prefix`: an earlier SIM check that a new one replaces. One a phone holds becomes `cancelling`;
 * one sent meanwhile stays sent.
 */
export async function cancelUnsentServiceSms(executor: Executor, to: string, prefix: string): Promise<void> {
  const from = toE164(smsConfig.senderPhone ?? '');
  if (!from) return;
  let accountId: string;
  try {
    accountId = await operatorAccountId(executor, from);
  } catch (error) {
    if (error instanceof SenderMisconfigured) return;
    throw error;
  }
  const unsent = await executor
    .select({ id: messages.id })
    .from(messages)
    .where(
      and(
        eq(messages.accountId, accountId),
        eq(messages.from, from),
        eq(messages.to, to),
        inArray(messages.status, ['queued', 'dispatched']),
        like(messages.content, `${prefix}%`),
      ),
    );
  for (const message of unsent) {
    try {
      await cancelMessage(executor, accountId, message.id);
    } catch (error) {
      const moved =
        error instanceof DomainError && ['MESSAGE_NOT_CANCELLABLE', 'INVALID_TRANSITION'].includes(error.code);
      if (!moved) throw error;
    }
  }
}
