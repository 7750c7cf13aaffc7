import { and, eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { phones } from '@/db/schema';
import type { DevicePrincipal } from '@/lib/auth/principal';
import { DomainError } from '@/lib/errors';

export type DevicePhone = {
  id: string;
  accountId: string;
  phone: string;
  messagesPerMinute: number;
  dailyCap: number | null;
};

/**
 * The phone a device key speaks for: its account's phone whose device it is. A device that has
 * not bound an email has no account, so no phone, yet; one whose phone was removed (or has
 * another device now) speaks for none.
 */
export async function findDevicePhone(executor: Executor, device: DevicePrincipal): Promise<DevicePhone> {
  if (device.status !== 'activated' || !device.accountId) {
    throw new DomainError('DEVICE_NOT_ACTIVATED', 'Bind an email to this device before it sends or receives messages.');
  }
  const [phone] = await executor
    .select({
      id: phones.id,
      accountId: phones.accountId,
      phone: phones.phone,
      messagesPerMinute: phones.messagesPerMinute,
      dailyCap: phones.dailyCap,
    })
    .from(phones)
    .where(
      and(
        eq(phones.accountId, device.accountId),
        eq(phones.phone, device.phoneNumber),
        eq(phones.deviceId, device.deviceId),
      ),
    );
  if (!phone) {
    throw new DomainError('FORBIDDEN', `Phone ${device.phoneNumber} is no longer a phone of this account.`);
  }
  return phone;
}
