import { eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { accounts, phones } from '@/db/schema';
import { DomainError } from '@/lib/errors';
import { log } from '@/lib/log';
import { sendMessage } from '@/lib/messages/send';
import { toE164 } from '@/lib/phone-number';
import { smsConfig } from './config';
import type { Sms, SmsSender } from './sender';

class SenderMisconfigured extends Error {}

/** The operator account: the one owning a phone with the sender number (picked by email when several do). */
async function operatorAccountId(executor: Executor, senderPhone: string): Promise<string> {
  const owners = await executor
    .select({ accountId: phones.accountId, email: accounts.email })
    .from(phones)
    .innerJoin(accounts, eq(accounts.id, phones.accountId))
    .where(eq(phones.phone, senderPhone));
  const email = smsConfig.senderEmail;
  const candidates = email ? owners.filter((owner) => owner.email === email) : owners;
  const [only] = candidates;
  if (only && candidates.length === 1) return only.accountId;
  if (candidates.length === 0) {
    throw new SenderMisconfigured(
      `No account${email ? ` with email ${email}` : ''} has a phone ${senderPhone} (VERIFICATION_SENDER_PHONE).`,
    );
  }
  throw new SenderMisconfigured(
    `${candidates.length} accounts have a phone ${senderPhone}: set VERIFICATION_SENDER_EMAIL to pick the operator account.`,
  );
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
