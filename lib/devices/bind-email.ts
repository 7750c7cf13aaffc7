import { eq, sql } from 'drizzle-orm';
import type { Executor, Transaction } from '@/db';
import { devices } from '@/db/schema';
import { findOrCreateAccount } from '@/lib/accounts/find-or-create';
import { findAccountById } from '@/lib/accounts/lookup';
import { CODE_LIFETIME_SECONDS, codeError, consumeCode, issueCode } from '@/lib/auth/codes';
import { clearKeyCache } from '@/lib/auth/key-lookup';
import { config } from '@/lib/config';
import { bindCodeEmail } from '@/lib/email/messages';
import { sendEmail } from '@/lib/email/send';
import { DomainError } from '@/lib/errors';
import { createPhone } from '@/lib/phones/create';
import { consumeRateLimits } from '@/lib/rate-limit/consume';
import { withTransaction } from '@/lib/transactions';
import { iso } from '@/lib/wire';
import { switchPhoneToDevice } from './attach';

type DeviceRow = typeof devices.$inferSelect;

/** The device, locked, when it may bind an email: verified, or activated (binding again). */
async function lockBindableDevice(tx: Transaction, deviceId: string): Promise<DeviceRow> {
  const [device] = await tx.select().from(devices).where(eq(devices.id, deviceId)).for('update');
  if (!device || (device.status !== 'verified' && device.status !== 'activated')) {
    throw new DomainError('INVALID_TRANSITION', 'Only a verified or activated device can bind an email.');
  }
  return device;
}

/** An activated device belongs to one account for good: it binds that account's email only. */
async function assertSameAccount(tx: Transaction, device: DeviceRow, email: string): Promise<void> {
  if (device.status !== 'activated' || !device.accountId) return;
  const account = await findAccountById(tx, device.accountId);
  if (account && account.email !== email) {
    throw new DomainError(
      'INVALID_TRANSITION',
      'This device is already activated in another account; register it again to move it.',
    );
  }
}

/** Step 3a: emails a 6-digit code to the address the device wants to bind. */
export async function requestBindCode(executor: Executor, deviceId: string, email: string) {
  return withTransaction(executor, async (tx) => {
    const device = await lockBindableDevice(tx, deviceId);
    await assertSameAccount(tx, device, email);
    await consumeRateLimits(tx, [
      {
        bucket: `bind:${device.id}`,
        limit: config.verificationRateLimit,
        windowSeconds: config.verificationRateWindowSeconds,
        what: 'binding codes for this device',
      },
    ]);
    await tx.update(devices).set({ pendingEmail: email }).where(eq(devices.id, device.id));
    const { code, expiresAt } = await issueCode(tx, { purpose: 'bind_email', deviceId: device.id, email });
    await sendEmail(tx, bindCodeEmail(email, code, CODE_LIFETIME_SECONDS));
    return { status: 'code_sent' as const, expires_at: iso(expiresAt) ?? '' };
  });
}

/**
 * Step 3b: the emailed code activates the device. The email's account is created on first sight
 * (default group, starter credits, free plan) or joined, and the device's number becomes a phone
 * of the account in the default group. Over the plan's phone limit, nothing is activated.
 */
export async function confirmBind(executor: Executor, deviceId: string, code: string) {
  const outcome = await withTransaction(executor, async (tx) => {
    const device = await lockBindableDevice(tx, deviceId);
    const check = await consumeCode(tx, { purpose: 'bind_email', deviceId: device.id }, code);
    if (!check.ok) return check;
    if (!check.email) throw new Error('confirmBind: binding code without an email');
    await assertSameAccount(tx, device, check.email);
    const { account } = await findOrCreateAccount(tx, check.email);
    await tx
      .update(devices)
      .set({
        accountId: account.id,
        status: 'activated',
        pendingEmail: null,
        activatedAt: device.activatedAt ?? sql`now()`,
      })
      .where(eq(devices.id, device.id));
    await attachNumber(tx, account.id, device);
    return { ok: true as const, accountId: account.id };
  });
  if (!outcome.ok) throw codeError(outcome.failure);
  clearKeyCache();
  return { status: 'activated' as const, account_id: outcome.accountId };
}

/**
 * Makes the device's number a phone of the account, sending through this device (when the account
 * already has the number, its phone switches to this device). The texted code proved the SIM.
 */
async function attachNumber(tx: Transaction, accountId: string, device: DeviceRow): Promise<void> {
  try {
    await createPhone(tx, accountId, { phone: device.phoneNumber, deviceId: device.id });
  } catch (error) {
    if (!(error instanceof DomainError && error.code === 'DUPLICATE_PHONE')) throw error;
  }
  await switchPhoneToDevice(tx, accountId, device.phoneNumber, device.id, 'verified');
}
