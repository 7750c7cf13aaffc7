import { and, asc, eq, isNotNull, type SQL } from 'drizzle-orm';
import type { Executor } from '@/db';
import { devices, type PhoneStatus, phones } from '@/db/schema';
import { notFound } from '@/lib/errors';
import { keysetPage, type Page, type PageQuery, toPage } from '@/lib/pagination';
import { type PhoneView, phoneColumns } from './present';
import type { PhoneWithUsageWire } from './schemas';
import { presentWithUsage } from './usage';

export async function findPhone(
  executor: Executor,
  accountId: string,
  phoneId: string,
): Promise<PhoneView | undefined> {
  const [phone] = await executor
    .select(phoneColumns)
    .from(phones)
    .where(and(eq(phones.accountId, accountId), eq(phones.id, phoneId)));
  return phone;
}

/** A phone of the account, or 404 NOT_FOUND (also for another account's phone). */
export async function getPhone(executor: Executor, accountId: string, phoneId: string): Promise<PhoneView> {
  const phone = await findPhone(executor, accountId, phoneId);
  if (!phone) throw notFound('Phone');
  return phone;
}

export type PhoneFilters = PageQuery & { group_id?: number; status?: PhoneStatus };

export async function listPhones(
  executor: Executor,
  accountId: string,
  query: PhoneFilters,
): Promise<Page<PhoneWithUsageWire>> {
  const keyset = keysetPage(query, { createdAt: phones.createdAt, id: phones.id, idType: 'uuid' });
  const conditions: SQL[] = [eq(phones.accountId, accountId)];
  if (query.group_id !== undefined) conditions.push(eq(phones.groupId, query.group_id));
  if (query.status) conditions.push(eq(phones.status, query.status));
  const rows = await executor
    .select(phoneColumns)
    .from(phones)
    .where(and(...conditions, keyset.after))
    .orderBy(...keyset.orderBy)
    .limit(keyset.limit);
  const page = toPage(rows, query.limit, (row) => row);
  return { ...page, data: await presentWithUsage(executor, accountId, page.data) };
}

/** A phone of the account with what counts against its caps now, or 404 NOT_FOUND. */
export async function readPhone(executor: Executor, accountId: string, phoneId: string): Promise<PhoneWithUsageWire> {
  const [phone] = await presentWithUsage(executor, accountId, [await getPhone(executor, accountId, phoneId)]);
  if (!phone) throw notFound('Phone');
  return phone;
}

/** The account's phones that have a device, with its id. */
export async function phonesWithDevices(executor: Executor, accountId: string) {
  return executor
    .select({ id: phones.id, deviceId: phones.deviceId })
    .from(phones)
    .where(and(eq(phones.accountId, accountId), isNotNull(phones.deviceId)));
}

/** The account's phones, oldest first, with the SIM cards their device last reported (null without one). */
export async function phonesWithSimCards(executor: Executor, accountId: string) {
  return executor
    .select({
      id: phones.id,
      phone: phones.phone,
      label: phones.label,
      createdAt: phones.createdAt,
      lastHeartbeatAt: phones.lastHeartbeatAt,
      simCards: devices.simCards,
    })
    .from(phones)
    .leftJoin(devices, eq(devices.id, phones.deviceId))
    .where(eq(phones.accountId, accountId))
    .orderBy(asc(phones.createdAt), asc(phones.id));
}
