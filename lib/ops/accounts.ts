import { asc, desc, eq, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { accounts, apiKeys, devices, phoneGroups, phones } from '@/db/schema';
import { normaliseEmail } from '@/lib/accounts/find-or-create';
import { DomainError } from '@/lib/errors';

export type AccountSummary = {
  id: string;
  email: string;
  plan: string;
  phones: number;
  groups: number;
  credits: number;
  createdAt: Date;
};

/** Every account with its counts and total credits, oldest first. */
export async function listAccounts(executor: Executor): Promise<AccountSummary[]> {
  return executor
    .select({
      id: accounts.id,
      email: accounts.email,
      plan: accounts.plan,
      phones: sql<number>`(select count(*) from phones p where p.account_id = accounts.id)`.mapWith(Number),
      groups: sql<number>`(select count(*) from phone_groups g where g.account_id = accounts.id)`.mapWith(Number),
      credits:
        sql<number>`(select coalesce(sum(g.balance), 0) from phone_groups g where g.account_id = accounts.id)`.mapWith(
          Number,
        ),
      createdAt: accounts.createdAt,
    })
    .from(accounts)
    .orderBy(asc(accounts.createdAt), asc(accounts.id));
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The account an operator names, by id or by email. */
export async function findAccount(executor: Executor, reference: string): Promise<typeof accounts.$inferSelect> {
  const trimmed = reference.trim();
  const condition = UUID.test(trimmed) ? eq(accounts.id, trimmed) : eq(accounts.email, normaliseEmail(trimmed));
  const [account] = await executor.select().from(accounts).where(condition);
  if (!account) throw new DomainError('NOT_FOUND', `No account with id or email "${trimmed}".`);
  return account;
}

/** An account as an operator sees it: groups with balances, phones, devices, and keys without secrets. */
export async function showAccount(executor: Executor, reference: string) {
  const account = await findAccount(executor, reference);
  const [groups, accountPhones, accountDevices, keys] = await Promise.all([
    executor
      .select({
        id: phoneGroups.id,
        name: phoneGroups.name,
        isDefault: phoneGroups.isDefault,
        balance: phoneGroups.balance,
      })
      .from(phoneGroups)
      .where(eq(phoneGroups.accountId, account.id))
      .orderBy(asc(phoneGroups.id)),
    executor
      .select({
        id: phones.id,
        phone: phones.phone,
        label: phones.label,
        groupId: phones.groupId,
        status: phones.status,
        battery: phones.battery,
        deviceId: phones.deviceId,
      })
      .from(phones)
      .where(eq(phones.accountId, account.id))
      .orderBy(asc(phones.createdAt)),
    executor
      .select({ id: devices.id, phoneNumber: devices.phoneNumber, status: devices.status, label: devices.label })
      .from(devices)
      .where(eq(devices.accountId, account.id))
      .orderBy(asc(devices.createdAt)),
    executor
      .select({
        id: apiKeys.id,
        name: apiKeys.name,
        prefix: apiKeys.prefix,
        createdAt: apiKeys.createdAt,
        lastUsedAt: apiKeys.lastUsedAt,
        revokedAt: apiKeys.revokedAt,
      })
      .from(apiKeys)
      .where(eq(apiKeys.accountId, account.id))
      .orderBy(desc(apiKeys.createdAt)),
  ]);
  // What an operator needs to know of the account itself: never a sealed column, nor settings' internals.
  const { id, email, plan, createdAt } = account;
  return { account: { id, email, plan, createdAt }, groups, phones: accountPhones, devices: accountDevices, keys };
}

export type AccountDetails = Awaited<ReturnType<typeof showAccount>>;
