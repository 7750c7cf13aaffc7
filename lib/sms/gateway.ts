import { and, eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { accounts, devices, phones } from '@/db/schema';
import { DomainError } from '@/lib/errors';
import { log } from '@/lib/log';
import { sendMessage } from '@/lib/messages/send';
import { toE164 } from '@/lib/phone-number';
import { smsConfig } from './config';
import type { Sms, SmsSender } from './service-sms';

class SenderMisconfigured extends Error {}

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
  const [sender] = await executor
    .select({ accountId: phones.accountId })
    .from(phones)
    .innerJoin(accounts, eq(accounts.id, phones.accountId))
    .innerJoin(devices, and(eq(devices.id, phones.deviceId), eq(devices.accountId, phones.accountId)))
    .where(and(eq(phones.phone, senderPhone), eq(accounts.email, email), eq(devices.status, 'activated')))
    .limit(1);
  if (!sender) {
    throw new SenderMisconfigured(
      `The account ${email} (VERIFICATION_SENDER_EMAIL) has no phone ${senderPhone} (VERIFICATION_SENDER_PHONE) with an activated device.`,
    );
  }
  return sender.accountId;
}

/**
 * Sends service SMS as ordinary gateway messages from the operator's phone, charged to its
 * group like any message. Whatever goes wrong (misconfiguration, no credits, unknown phone) is
 * logged for the operator and answered as 503 to the caller, whose transaction rolls back.
 */
export const gatewaySender: SmsSender = {
  async send(executor: Executor, sms: Sms) {
    const configured = smsConfig.senderPhone ?? '';
    try {
      const from = toE164(configured);
      if (!from) throw new SenderMisconfigured(`VERIFICATION_SENDER_PHONE "${configured}" is not an E.164 number.`);
      const accountId = await operatorAccountId(executor, from);
      await sendMessage(executor, accountId, { from, to: sms.to, content: sms.text });
    } catch (error) {
      if (!(error instanceof SenderMisconfigured || error instanceof DomainError)) throw error;
      log.error({ err: error, to: sms.to }, 'verification SMS could not be sent');
      throw new DomainError('SERVICE_UNAVAILABLE', 'The verification SMS could not be sent. Try again shortly.', {
        headers: { 'Retry-After': '30' },
      });
    }
  },
};
