import { eq } from 'drizzle-orm';
import { beforeAll, vi } from 'vitest';
import type { Database } from '@/db';
import { accounts, apiKeys, devices, type PlanName, phoneGroups, phones } from '@/db/schema';
import { findOrCreateAccount } from '@/lib/accounts/find-or-create';
import { clearKeyCache } from '@/lib/auth/key-lookup';
import { generateKey } from '@/lib/auth/keys';
import { listDevInbox } from '@/lib/dev-inbox/store';

let counter = 0;

/** A distinct, valid E.164 number (US +1 415 555 xxxx) for each call within a test file. */
export function testNumber(): string {
  counter += 1;
  return `+1415555${String(1000 + (counter % 9000)).padStart(4, '0')}`;
}

export type TestAccount = {
  accountId: string;
  email: string;
  /** Account-wide key (sk_…). */
  apiKey: string;
  apiKeyId: string;
  /** Key of the account's activated device (dk_…). */
  deviceKey: string;
  deviceId: string;
  /** The device's number, a phone of the account in its default group. */
  phone: string;
  phoneId: string;
  defaultGroupId: number;
};

/**
 * An activated account as the activation flow leaves it (account, default group with starter
 * credits, an activated device and its phone, an API key), written directly: tests of other
 * areas should not depend on the activation routes.
 */
export async function createTestAccount(
  db: Database,
  options: { email?: string; plan?: PlanName; credits?: number } = {},
): Promise<TestAccount> {
  const email = options.email ?? `user-${crypto.randomUUID()}@example.test`;
  const { account } = await findOrCreateAccount(db, email);
  if (options.plan) await db.update(accounts).set({ plan: options.plan }).where(eq(accounts.id, account.id));
  const [group] = await db
    .select({ id: phoneGroups.id })
    .from(phoneGroups)
    .where(eq(phoneGroups.accountId, account.id));
  if (!group) throw new Error('createTestAccount: no default group');
  if (options.credits !== undefined) {
    await db.update(phoneGroups).set({ balance: options.credits }).where(eq(phoneGroups.id, group.id));
  }
  const { phone, phoneId, deviceKey, deviceId } = await insertPhoneWithDevice(db, account.id, group.id);
  const key = generateKey('account');
  const [keyRow] = await db
    .insert(apiKeys)
    .values({ accountId: account.id, name: 'test', keyHash: key.hash, prefix: key.prefix })
    .returning({ id: apiKeys.id });
  return {
    accountId: account.id,
    email: account.email,
    apiKey: key.key,
    apiKeyId: keyRow!.id,
    deviceKey,
    deviceId,
    phone,
    phoneId,
    defaultGroupId: group.id,
  };
}

/** An account key that existed and was revoked. */
export async function createRevokedKey(db: Database, accountId: string): Promise<string> {
  const key = generateKey('account');
  await db
    .insert(apiKeys)
    .values({ accountId, name: 'revoked', keyHash: key.hash, prefix: key.prefix, revokedAt: new Date() });
  clearKeyCache();
  return key.key;
}

export type SharedAccount = { account: TestAccount; revokedKey: string };

/**
 * The account a test file shares, created in `beforeAll` with a revoked key of it beside (for the
 * standard auth cases, test/auth-cases.ts). `account` stands for it: read its fields inside tests
 * and hooks, not at module level. `fixture()` is what describeAuthCases takes.
 */
export function sharedTestAccount(
  db: () => Database,
  options: Parameters<typeof createTestAccount>[1] = {},
): { account: TestAccount; fixture: () => SharedAccount } {
  let shared: SharedAccount | undefined;
  beforeAll(async () => {
    const account = await createTestAccount(db(), options);
    shared = { account, revokedKey: await createRevokedKey(db(), account.accountId) };
  });
  const fixture = (): SharedAccount => {
    if (!shared) throw new Error('sharedTestAccount: the account is created in beforeAll; read it inside tests');
    return shared;
  };
  const account = new Proxy({} as TestAccount, {
    get: (_target, field) => fixture().account[field as keyof TestAccount],
  });
  return { account, fixture };
}

/** The newest code the dev inbox holds for a number or an email, polled with a bound (mail leaves after the answer). */
export async function devInboxCode(db: Database, to: string): Promise<string> {
  return vi.waitFor(
    async () => {
      const [item] = await listDevInbox(db, { to, limit: 1 });
      if (!item?.code) throw new Error(`no code for ${to} in the dev inbox yet`);
      return item.code;
    },
    { timeout: 5_000, interval: 10 },
  );
}

export type TestPhone = { phone: string; phoneId: string; deviceKey: string; deviceId: string };

/**
 * Another phone of the account with its own activated device, in `groupId` (default: the default
 * group); `online` marks it online as a heartbeat would (without one's history row).
 */
export async function addTestPhone(
  db: Database,
  account: TestAccount,
  options: { groupId?: number; online?: boolean } = {},
): Promise<TestPhone> {
  return insertPhoneWithDevice(db, account.accountId, options.groupId ?? account.defaultGroupId, {
    online: options.online,
  });
}

/** A new number with an activated device of the account, as a phone of `groupId`. */
async function insertPhoneWithDevice(
  db: Database,
  accountId: string,
  groupId: number,
  options: { online?: boolean } = {},
): Promise<TestPhone> {
  const phone = testNumber();
  const deviceKey = generateKey('device');
  const [device] = await db
    .insert(devices)
    .values({
      phoneNumber: phone,
      status: 'activated',
      accountId,
      keyHash: deviceKey.hash,
      keyPrefix: deviceKey.prefix,
      verifiedAt: new Date(),
      activatedAt: new Date(),
    })
    .returning({ id: devices.id });
  const [row] = await db
    .insert(phones)
    .values({
      accountId,
      groupId,
      phone,
      deviceId: device!.id,
      ...(options.online ? { status: 'online' as const, lastHeartbeatAt: new Date() } : {}),
    })
    .returning({ id: phones.id });
  return { phone, phoneId: row!.id, deviceKey: deviceKey.key, deviceId: device!.id };
}

/** A group's balance as stored. */
export async function balanceOf(db: Database, groupId: number): Promise<number> {
  const [group] = await db
    .select({ balance: phoneGroups.balance })
    .from(phoneGroups)
    .where(eq(phoneGroups.id, groupId));
  if (!group) throw new Error(`balanceOf: no group ${groupId}`);
  return group.balance;
}
