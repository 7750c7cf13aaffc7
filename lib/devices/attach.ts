import { and, eq, ne } from 'drizzle-orm';
import type { Transaction } from '@/db';
import { devices, phones, type SimVerification } from '@/db/schema';
import { keysChanged } from '@/lib/auth/key-lookup';

/**
 * Makes `deviceId` the device that sends for the account's phone with this number, and revokes
 * every other device of the account on that number: one number, one live device credential.
 */
export async function switchPhoneToDevice(
  tx: Transaction,
  accountId: string,
  number: string,
  deviceId: string,
  simVerification?: SimVerification,
): Promise<void> {
  await tx
    .update(phones)
    .set({ deviceId, ...(simVerification ? { simVerification } : {}) })
    .where(and(eq(phones.accountId, accountId), eq(phones.phone, number)));
  await tx
    .update(devices)
    .set({ status: 'revoked' })
    .where(
      and(
        eq(devices.accountId, accountId),
        eq(devices.phoneNumber, number),
        eq(devices.status, 'activated'),
        ne(devices.id, deviceId),
      ),
    );
  await keysChanged(tx);
}
