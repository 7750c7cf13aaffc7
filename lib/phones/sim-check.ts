import { and, asc, eq, inArray, isNotNull, ne, sql } from 'drizzle-orm';
import type { Executor, Transaction } from '@/db';
import { devices, messages, phones } from '@/db/schema';
import { recordAudit } from '@/lib/audit/record';
import { codeError, consumeCode, issueCode } from '@/lib/auth/codes';
import { config } from '@/lib/config';
import { DomainError } from '@/lib/errors';
import { screenRecipient, submitFreeSimCheck } from '@/lib/messages/pipeline';
import type { MessageRow } from '@/lib/messages/present';
import { canMove, transitionMessage } from '@/lib/messages/state-machine';
import { isSameNumber, toE164 } from '@/lib/phone-number';
import { ownedPhone } from '@/lib/phones/owned';
import { consumeRateLimits } from '@/lib/rate-limit/consume';
import { smsConfig } from '@/lib/sms/config';
import { cancelUnsentServiceSms } from '@/lib/sms/gateway';
import { sendSms } from '@/lib/sms/service-sms';
import { withTransaction } from '@/lib/transactions';

/**
 * SIM proof for phones paired with the SMSGate app. The code of a `verify_sim` code of the app's
 * device (hashed, 10 minutes, 5 tries) is texted to the phone's number, and the check passes when
 * the app reports that SMS received from the number it was sent from, or when the account holder
 * types the code (seen on the phone) into the dashboard.
 *
 * Who texts it decides what it proves:
 * - the operator's phone (`VERIFICATION_SENDER_PHONE`, when set) or another verified phone of the
 *   account: the code travels through the carrier and is never handed to the phone being
 *   verified, so only a phone that receives SMS for the number can know it (from another phone of
 *   the account, as far as that phone is honest: whoever holds both tokens can read the code from
 *   the sender's queue);
 * - otherwise the phone itself (loopback). Its own app is handed the code by `GET /message`, so
 *   the check is self-attested: it proves that whoever holds the token controls the app, not that
 *   the app sits behind the number.
 */
const CODE_IN_TEXT = /\b(\d{6})\b/;

/** How every check's text begins: the operator's earlier checks to a number are found by it. */
const SIM_CHECK_PREFIX = 'Simgate SIM check: ';

export function simCheckText(code: string): string {
  return `${SIM_CHECK_PREFIX}${code}. This text to your own number proves the SIM; no reply needed.`;
}

/** The check texted from another number: the person may be asked to type it in the dashboard. */
export function carrierSimCheckText(code: string): string {
  return `${SIM_CHECK_PREFIX}${code}. This text proves the SIM of the phone that receives it; no reply needed.`;
}

type CheckedPhone = { id: string; accountId: string; phone: string };

/** Another phone of the account that can text the check: SIM verified, with a device, not the phone itself. */
async function verifiedSibling(tx: Transaction, phone: CheckedPhone) {
  const [sibling] = await tx
    .select({ id: phones.id, phone: phones.phone })
    .from(phones)
    .where(
      and(
        eq(phones.accountId, phone.accountId),
        ne(phones.id, phone.id),
        eq(phones.simVerification, 'verified'),
        isNotNull(phones.deviceId),
      ),
    )
    // The phone heard from most recently is the likeliest to send it soon.
    .orderBy(sql`${phones.lastHeartbeatAt} desc nulls last`, asc(phones.createdAt))
    .limit(1);
  return sibling;
}

/** The sibling when the gate lets it text the phone (the account's countries): else none. */
async function allowedSibling(tx: Transaction, phone: CheckedPhone) {
  const sibling = await verifiedSibling(tx, phone);
  if (!sibling) return undefined;
  const refusal = await screenRecipient(tx, {
    origin: 'sim_check',
    accountId: phone.accountId,
    counterpart: phone.phone,
    from: sibling.phone,
    to: phone.phone,
  });
  return refusal ? undefined : sibling;
}

/** The operator's sender, when one is configured and it is not the phone being checked. */
function operatorSender(phone: CheckedPhone): string | undefined {
  const configured = smsConfig.senderPhone;
  const sender = configured ? toE164(configured) : undefined;
  return sender && !isSameNumber(sender, phone.phone) ? sender : undefined;
}

/**
 * Marks the phone `pending` and texts it a new code, each sender through the gate of automatic SMS
 * (lib/messages/gate.ts, origin `sim_check`): from the operator's sender when one is set (paid by
 * the operator, under the operator account's countries and opt-outs), else, or when the operator's
 * rules refuse the number, from another verified phone of the account (a free SMS on that phone's
 * queue, under the account's countries), else from the phone itself (loopback, free). Every
 * earlier check not yet sent is dropped first, the account's own and the operator's (cancelled and
 * refunded): its code no longer counts, so no phone is handed it again.
 */
export async function startSimCheck(tx: Transaction, phone: CheckedPhone, deviceId: string): Promise<void> {
  await tx
    .delete(messages)
    .where(
      and(
        eq(messages.accountId, phone.accountId),
        eq(messages.to, phone.phone),
        eq(messages.kind, 'sim_check'),
        inArray(messages.status, ['queued', 'dispatched', 'cancelling']),
      ),
    );
  await cancelUnsentServiceSms(tx, phone.phone, SIM_CHECK_PREFIX);
  const { code } = await issueCode(tx, { purpose: 'verify_sim', deviceId });
  const operator = operatorSender(phone);
  if (operator) {
    const refusal = await sendSms(tx, { origin: 'sim_check', to: phone.phone, text: carrierSimCheckText(code), code });
    if (!refusal) {
      await tx
        .update(phones)
        .set({ simVerification: 'pending', simCheckSender: operator })
        .where(and(eq(phones.accountId, phone.accountId), eq(phones.id, phone.id)));
      return;
    }
  }
  const sibling = await allowedSibling(tx, phone);
  const sender = sibling ?? { id: phone.id, phone: phone.phone };
  await tx
    .update(phones)
    .set({ simVerification: 'pending', simCheckSender: sibling ? sibling.phone : null })
    .where(and(eq(phones.accountId, phone.accountId), eq(phones.id, phone.id)));
  await submitFreeSimCheck(tx, {
    accountId: phone.accountId,
    sender,
    to: phone.phone,
    content: sibling ? carrierSimCheckText(code) : simCheckText(code),
  });
}

async function markVerified(
  tx: Transaction,
  phone: CheckedPhone,
  deviceId: string,
  method: 'loopback' | 'carrier' | 'code',
): Promise<void> {
  await tx
    .update(phones)
    .set({ simVerification: 'verified', simCheckSender: null })
    .where(and(eq(phones.accountId, phone.accountId), eq(phones.id, phone.id)));
  await tx.update(devices).set({ verifiedAt: new Date() }).where(eq(devices.id, deviceId));
  await recordAudit(tx, {
    accountId: phone.accountId,
    action: 'phone.sim_verified',
    target: phone.id,
    details: { phone: phone.phone, device_id: deviceId, method },
  });
}

/**
 * Called for every inbound SMS as it is stored: an SMS from the phone's own number carrying the
 * live code of a pending check verifies the SIM. Anything else is an ordinary inbound message.
 */
export async function confirmSimByLoopback(tx: Transaction, inbound: MessageRow): Promise<boolean> {
  const [phone] = await tx
    .select({
      id: phones.id,
      accountId: phones.accountId,
      phone: phones.phone,
      simVerification: phones.simVerification,
      simCheckSender: phones.simCheckSender,
      deviceId: phones.deviceId,
    })
    .from(phones)
    .where(and(eq(phones.accountId, inbound.accountId), eq(phones.id, inbound.phoneId)));
  if (phone?.simVerification !== 'pending' || !phone.deviceId) return false;
  if (!isSameNumber(inbound.from, phone.simCheckSender ?? phone.phone)) return false;
  const code = CODE_IN_TEXT.exec(inbound.content)?.[1];
  if (!code) return false;
  const check = await consumeCode(tx, { purpose: 'verify_sim', deviceId: phone.deviceId }, code);
  if (!check.ok) return false;
  await markVerified(tx, phone, phone.deviceId, phone.simCheckSender ? 'carrier' : 'loopback');
  await settleLoopback(tx, phone);
  return true;
}

/** The check SMS arrived, so it was sent and delivered, whether or not its sender has said so yet. */
async function settleLoopback(tx: Transaction, phone: CheckedPhone): Promise<void> {
  const inFlight = await tx
    .select()
    .from(messages)
    .where(
      and(
        eq(messages.accountId, phone.accountId),
        eq(messages.to, phone.phone),
        eq(messages.kind, 'sim_check'),
        inArray(messages.status, ['dispatched', 'sent']),
      ),
    )
    .for('update');
  for (let message of inFlight) {
    for (const to of ['sent', 'delivered'] as const) {
      if (canMove(message.status, to)) message = await transitionMessage(tx, message, to);
    }
  }
}

async function pendingPhone(tx: Transaction, accountId: string, phoneId: string) {
  const phone = await ownedPhone(tx, accountId, phoneId, { lock: 'no key update' });
  if (phone.simVerification !== 'pending' || !phone.deviceId) {
    throw new DomainError(
      'INVALID_TRANSITION',
      `Phone ${phone.phone} has no SIM check under way (its SIM is ${phone.simVerification}).`,
    );
  }
  return { ...phone, deviceId: phone.deviceId };
}

/** The dashboard's fallback: the code of the loopback SMS, typed by the account holder. */
export async function verifySimByCode(executor: Executor, accountId: string, phoneId: string, code: string) {
  const outcome = await withTransaction(executor, async (tx) => {
    const phone = await pendingPhone(tx, accountId, phoneId);
    const check = await consumeCode(tx, { purpose: 'verify_sim', deviceId: phone.deviceId }, code);
    if (!check.ok) return check;
    await markVerified(tx, phone, phone.deviceId, 'code');
    return { ok: true as const };
  });
  if (!outcome.ok) throw codeError(outcome.failure);
}

/**
 * Sends the check again with a new code (the earlier one expired or never arrived): at most
 * SIM_CHECK_RESENDS_PER_HOUR times per phone in any hour, then 429 with Retry-After.
 */
export async function restartSimCheck(executor: Executor, accountId: string, phoneId: string): Promise<void> {
  await withTransaction(executor, async (tx) => {
    const phone = await pendingPhone(tx, accountId, phoneId);
    await consumeRateLimits(tx, [
      {
        bucket: `sim-check-resend:${phone.id}`,
        limit: config.simCheckResendsPerHour,
        windowSeconds: 3600,
        what: 'SIM-check resends for this phone',
      },
    ]);
    await startSimCheck(tx, phone, phone.deviceId);
  });
}
