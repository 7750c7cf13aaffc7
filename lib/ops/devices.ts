import { eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { devices, phones } from '@/db/schema';
import { clearKeyCache, keysChanged } from '@/lib/auth/key-lookup';
import { DomainError, validationError } from '@/lib/errors';
import { withTransaction } from '@/lib/transactions';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Revokes a device: its key stops working (running servers drop cached keys within
 * KEY_CACHE_TTL_MS) and its phone no longer counts as connected. Revoking twice is harmless.
 */
export async function revokeDevice(executor: Executor, deviceId: string) {
  const id = deviceId.trim();
  if (!UUID.test(id)) throw validationError('device_id', 'must be a device id (a UUID)');
  const result = await withTransaction(executor, async (tx) => {
    const [device] = await tx
      .select({ status: devices.status, phoneNumber: devices.phoneNumber, accountId: devices.accountId })
      .from(devices)
      .where(eq(devices.id, id))
      .for('update');
    if (!device) throw new DomainError('NOT_FOUND', `No device with id ${id}.`);
    await tx.update(devices).set({ status: 'revoked' }).where(eq(devices.id, id));
    await keysChanged(tx);
    const unlinked = await tx
      .update(phones)
      .set({ deviceId: null })
      .where(eq(phones.deviceId, id))
      .returning({ phone: phones.phone });
    return {
      deviceId: id,
      phoneNumber: device.phoneNumber,
      accountId: device.accountId,
      alreadyRevoked: device.status === 'revoked',
      unlinkedPhones: unlinked.map((row) => row.phone),
    };
  });
  clearKeyCache();
  return result;
}
