import { eq, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { devices } from '@/db/schema';
import { codeError, consumeCode } from '@/lib/auth/codes';
import { clearKeyCache } from '@/lib/auth/key-lookup';
import { generateKey } from '@/lib/auth/keys';
import { DomainError, notFound } from '@/lib/errors';
import { withTransaction } from '@/lib/transactions';

/**
 * Step 2: the code texted to the number proves the device holds the SIM. Issues the device key
 * (`dk_…`), returned this once; only its hash is kept.
 */
export async function verifySim(executor: Executor, input: { deviceId: string; code: string }) {
  const outcome = await withTransaction(executor, async (tx) => {
    const [device] = await tx
      .select({ id: devices.id, status: devices.status })
      .from(devices)
      .where(eq(devices.id, input.deviceId))
      .for('update');
    if (!device) throw notFound('Device');
    if (device.status !== 'pending_verification') {
      throw new DomainError(
        'INVALID_TRANSITION',
        `This device is already ${device.status}; register the number again to get a new device key.`,
      );
    }
    const check = await consumeCode(tx, { purpose: 'verify_sim', deviceId: device.id }, input.code);
    if (!check.ok) return check;
    const key = generateKey('device');
    await tx
      .update(devices)
      .set({ status: 'verified', keyHash: key.hash, keyPrefix: key.prefix, verifiedAt: sql`now()` })
      .where(eq(devices.id, device.id));
    return { ok: true as const, deviceKey: key.key };
  });
  if (!outcome.ok) throw codeError(outcome.failure);
  clearKeyCache();
  return { device_id: input.deviceId, status: 'verified' as const, device_key: outcome.deviceKey };
}
