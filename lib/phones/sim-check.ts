import { and, eq, inArray } from 'drizzle-orm';
import type { Executor, Transaction } from '@/db';
import { devices, messages, phones } from '@/db/schema';
import { recordAudit } from '@/lib/audit/record';
import { codeError, consumeCode, issueCode } from '@/lib/auth/codes';
import { withTransaction } from '@/lib/db';
import { DomainError, notFound } from '@/lib/errors';
import { DEFAULT_TTL_SECONDS } from '@/lib/messages/limits';
import type { MessageRow } from '@/lib/messages/present';
import { countSegments } from '@/lib/messages/segments';
import { afterTransition, canMove, transitionMessage } from '@/lib/messages/state-machine';
import { notifyOutbox } from '@/lib/notify/outbox';
import { isSameNumber } from '@/lib/phone-number';

/**
 * SIM proof by loopback for phones paired with the SMSGate app: the phone texts a code to its own
 * number; when the app reports that SMS received, the SIM is the number's. Where a carrier does
 * not deliver a self-addressed SMS, the account holder types the code (seen on the phone) into
 * the dashboard. The code is a `verify_sim` code of the app's device (hashed, 10 minutes, 5 tries).
 */
const CODE_IN_TEXT = /\b(\d{6})\b/;

export function simCheckText(code: string): string {
  return `Simgate SIM check: ${code}. This text to your own number proves the SIM; no reply needed.`;
}

type CheckedPhone = { id: string; accountId: string; phone: string };

/**
 * Marks the phone `pending` and queues the free loopback SMS (no group is charged) for the
 * phone's device to send to its own number. An earlier check not yet sent is dropped (its code
 * no longer counts), so the phone is not handed it again.
 */
export async function startSimCheck(tx: Transaction, phone: CheckedPhone, deviceId: string): Promise<void> {
  await tx.update(phones).set({ simVerification: 'pending' }).where(eq(phones.id, phone.id));
  await tx
    .delete(messages)
    .where(
      and(
        eq(messages.phoneId, phone.id),
        eq(messages.kind, 'sim_check'),
        inArray(messages.status, ['queued', 'dispatched']),
      ),
    );
  const { code } = await issueCode(tx, { purpose: 'verify_sim', deviceId });
  const content = simCheckText(code);
  const { encoding, segments } = countSegments(content);
  const now = new Date();
  const [row] = await tx
    .insert(messages)
    .values({
      accountId: phone.accountId,
      phoneId: phone.id,
      groupId: null,
      direction: 'outbound',
      kind: 'sim_check',
      from: phone.phone,
      to: phone.phone,
      content,
      status: 'queued',
      encoding,
      segments,
      sendAt: now,
      expiresAt: new Date(now.getTime() + DEFAULT_TTL_SECONDS * 1000),
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  if (!row) throw new Error('startSimCheck: insert returned no row');
  await afterTransition(tx, [row], { at: now });
  await notifyOutbox(tx, phone.id);
}

async function markVerified(
  tx: Transaction,
  phone: CheckedPhone,
  deviceId: string,
  method: 'loopback' | 'code',
): Promise<void> {
  await tx.update(phones).set({ simVerification: 'verified' }).where(eq(phones.id, phone.id));
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
      deviceId: phones.deviceId,
    })
    .from(phones)
    .where(eq(phones.id, inbound.phoneId));
  if (phone?.simVerification !== 'pending' || !phone.deviceId) return false;
  if (!isSameNumber(inbound.from, phone.phone)) return false;
  const code = CODE_IN_TEXT.exec(inbound.content)?.[1];
  if (!code) return false;
  const check = await consumeCode(tx, { purpose: 'verify_sim', deviceId: phone.deviceId }, code);
  if (!check.ok) return false;
  await markVerified(tx, phone, phone.deviceId, 'loopback');
  await settleLoopback(tx, phone.id);
  return true;
}

/** The check SMS came back, so it was sent and delivered, whether or not the phone has said so yet. */
async function settleLoopback(tx: Transaction, phoneId: string): Promise<void> {
  const inFlight = await tx
    .select()
    .from(messages)
    .where(
      and(
        eq(messages.phoneId, phoneId),
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
  const [phone] = await tx
    .select({
      id: phones.id,
      accountId: phones.accountId,
      phone: phones.phone,
      simVerification: phones.simVerification,
      deviceId: phones.deviceId,
    })
    .from(phones)
    .where(and(eq(phones.accountId, accountId), eq(phones.id, phoneId)))
    .for('no key update');
  if (!phone) throw notFound('Phone');
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

/** Sends the loopback SMS again with a new code (the earlier one expired or never arrived). */
export async function restartSimCheck(executor: Executor, accountId: string, phoneId: string): Promise<void> {
  await withTransaction(executor, async (tx) => {
    const phone = await pendingPhone(tx, accountId, phoneId);
    await startSimCheck(tx, phone, phone.deviceId);
  });
}
