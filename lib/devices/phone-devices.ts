import { and, desc, eq, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { devices, phones } from '@/db/schema';
import { recordAudit } from '@/lib/audit/record';
import { clearKeyCache, keysChanged } from '@/lib/auth/key-lookup';
import { notFound } from '@/lib/errors';
import { ownedPhone } from '@/lib/phones/owned';
import { withTransaction } from '@/lib/transactions';
import { iso } from '@/lib/wire';

type DeviceRow = typeof devices.$inferSelect;

function presentDevice(row: DeviceRow, currentId: string | null) {
  return {
    id: row.id,
    kind: row.kind,
    name: row.name,
    status: row.status,
    current: row.id === currentId && row.status === 'activated',
    key_prefix: row.keyPrefix,
    sim_cards: row.simCards ?? [],
    created_at: iso(row.createdAt) ?? '',
    last_seen_at: iso(row.lastUsedAt),
  };
}

/** The devices that have sent for this phone's number in the account, newest first. */
export async function listPhoneDevices(executor: Executor, accountId: string, phoneId: string) {
  const phone = await ownedPhone(executor, accountId, phoneId);
  const rows = await executor
    .select()
    .from(devices)
    .where(and(eq(devices.accountId, accountId), eq(devices.phoneNumber, phone.phone)))
    .orderBy(desc(devices.createdAt), desc(devices.id));
  return { data: rows.map((row) => presentDevice(row, phone.deviceId)) };
}

/**
 * Revokes one device of the phone at once: its credential stops working (the key cache is
 * cleared here; other instances follow within KEY_CACHE_TTL_MS) and the phone has no device
 * until one is activated or paired again. Revoking twice is harmless.
 */
export async function revokePhoneDevice(
  executor: Executor,
  accountId: string,
  phoneId: string,
  deviceId: string,
): Promise<void> {
  await withTransaction(executor, async (tx) => {
    const phone = await ownedPhone(tx, accountId, phoneId);
    const [device] = await tx
      .update(devices)
      .set({ status: 'revoked' })
      .where(and(eq(devices.id, deviceId), eq(devices.accountId, accountId), eq(devices.phoneNumber, phone.phone)))
      .returning({ id: devices.id });
    if (!device) throw notFound('Device');
    await recordAudit(tx, { accountId, action: 'device.revoked', target: device.id, details: { phone: phone.phone } });
    await keysChanged(tx);
    // A SIM check waits for a device that is gone now: the phone is back to unproven.
    await tx
      .update(phones)
      .set({
        deviceId: sql`null`,
        simVerification: sql`case when ${phones.simVerification} = 'pending' then 'unverified' else ${phones.simVerification} end`,
      })
      .where(and(eq(phones.accountId, accountId), eq(phones.id, phone.id), eq(phones.deviceId, device.id)));
  });
  clearKeyCache();
}
