import { and, eq, inArray } from 'drizzle-orm';
import { LRUCache } from 'lru-cache';
import type { Database, Executor } from '@/db';
import { phones } from '@/db/schema';
import { alongsideKeyCache, keyCacheEpoch } from '@/lib/auth/key-lookup';
import type { DevicePrincipal } from '@/lib/auth/principal';
import { batcher } from '@/lib/batch';
import { DomainError } from '@/lib/errors';

export type DevicePhone = {
  id: string;
  accountId: string;
  phone: string;
  messagesPerMinute: number;
  dailyCap: number | null;
  groupId: number | null;
};

/** What a device's phone is read as (`DevicePhone`). */
const DEVICE_PHONE_COLUMNS = {
  id: phones.id,
  accountId: phones.accountId,
  phone: phones.phone,
  messagesPerMinute: phones.messagesPerMinute,
  dailyCap: phones.dailyCap,
  groupId: phones.groupId,
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
    .select(DEVICE_PHONE_COLUMNS)
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

type PhoneRow = DevicePhone & { deviceId: string | null };

const PHONE_BATCH_MAX = 500;
const phoneLookups = new WeakMap<Database, (device: DevicePrincipal) => Promise<PhoneRow | undefined>>();

/**
 * How long a connecting device's phone is remembered. A long-poll comes back every 20–25 s and asks
 * again for the same phone: remembered, its re-polls skip the lookup, and each web process a phone's
 * re-polls reach looks it up once in 10 minutes (once a minute made 90–165 statements a second for
 * 10,000 long-polls in `npm run bench`'s connections scenario). What could change meanwhile does not
 * make it wrong: a removed phone or a device switched away from clears the memory with the keys
 * (`alongsideKeyCache`, in every instance), a phone's number never changes (it is part of what is
 * remembered by), and what a claim reads of the phone (its limits, its group) it reads again under the
 * phone's lock. The time bounds only what a phone that went away keeps of the memory.
 */
const CONNECTING_PHONE_TTL_MS = 10 * 60_000;
const connectingPhones = new WeakMap<Database, LRUCache<string, DevicePhone>>();
const remembered = new Set<LRUCache<string, DevicePhone>>();
alongsideKeyCache(() => {
  for (const memory of remembered) memory.clear();
});

function rememberedPhones(db: Database): LRUCache<string, DevicePhone> {
  let memory = connectingPhones.get(db);
  if (!memory) {
    memory = new LRUCache<string, DevicePhone>({ max: 100_000, ttl: CONNECTING_PHONE_TTL_MS });
    connectingPhones.set(db, memory);
    remembered.add(memory);
  }
  return memory;
}

/**
 * `findDevicePhone` for the requests that open a phone's connection (a claim, an event stream):
 * those arriving together (every phone reconnecting after a restart) are looked up in one statement.
 */
export async function findConnectingPhone(db: Database, device: DevicePrincipal): Promise<DevicePhone> {
  if (device.status !== 'activated' || !device.accountId) return findDevicePhone(db, device);
  // The device, its account and its number: a principal that speaks for another phone finds none here.
  const key = `${device.deviceId} ${device.accountId} ${device.phoneNumber}`;
  const memory = rememberedPhones(db);
  const known = memory.get(key);
  if (known) return known;
  let lookup = phoneLookups.get(db);
  if (!lookup) {
    lookup = batcher<DevicePrincipal, PhoneRow | undefined>({
      inFlight: 2,
      max: PHONE_BATCH_MAX,
      gather: true,
      run: async (items) => {
        const rows = await db
          .select({ ...DEVICE_PHONE_COLUMNS, deviceId: phones.deviceId })
          .from(phones)
          .where(
            and(
              inArray(phones.accountId, [...new Set(items.map((item) => item.accountId as string))]),
              inArray(
                phones.deviceId,
                items.map((item) => item.deviceId),
              ),
            ),
          );
        const byDevice = new Map(rows.map((row) => [row.deviceId, row]));
        return items.map((item) => {
          const row = byDevice.get(item.deviceId);
          return row && row.accountId === item.accountId && row.phone === item.phoneNumber ? row : undefined;
        });
      },
    });
    phoneLookups.set(db, lookup);
  }
  const epoch = keyCacheEpoch();
  const row = await lookup(device);
  if (!row) {
    throw new DomainError('FORBIDDEN', `Phone ${device.phoneNumber} is no longer a phone of this account.`);
  }
  const { deviceId: _deviceId, ...phone } = row;
  // A removal that cleared the memory meanwhile may have come after this lookup's read.
  if (keyCacheEpoch() === epoch) memory.set(key, phone);
  return phone;
}
