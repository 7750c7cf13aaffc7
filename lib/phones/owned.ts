import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { phones } from '@/db/schema';
import { notFound } from '@/lib/errors';

export type PhoneRow = typeof phones.$inferSelect;

/**
 * A phone of the account, or 404 NOT_FOUND, also for another account's phone: the one way every
 * area finds "this account's phone". `lock` takes the row lock the caller's transaction needs
 * (`update` to delete it, `no key update` to change it while messages may still point at it).
 */
export async function ownedPhone(
  executor: Executor,
  accountId: string,
  phoneId: string,
  options: { lock?: 'update' | 'no key update' } = {},
): Promise<PhoneRow> {
  const query = executor
    .select()
    .from(phones)
    .where(and(eq(phones.accountId, accountId), eq(phones.id, phoneId)));
  const [phone] = await (options.lock ? query.for(options.lock) : query);
  if (!phone) throw notFound('Phone');
  return phone;
}

/** The account's phone with this number, or 404 NOT_FOUND. */
export async function ownedPhoneByNumber(executor: Executor, accountId: string, number: string): Promise<PhoneRow> {
  const [phone] = await executor
    .select()
    .from(phones)
    .where(and(eq(phones.accountId, accountId), eq(phones.phone, number)));
  if (!phone) throw notFound('Phone');
  return phone;
}

/** The id of the account's phone with this number, if it has one. */
export async function phoneIdOfNumber(
  executor: Executor,
  accountId: string,
  number: string,
): Promise<string | undefined> {
  const [phone] = await executor
    .select({ id: phones.id })
    .from(phones)
    .where(and(eq(phones.accountId, accountId), eq(phones.phone, number)));
  return phone?.id;
}

/**
 * The account's phone whose id reads as this text (its id and number), if it has one. Compared as
 * text, so an id from another wire that is not a uuid finds nothing instead of failing the cast.
 */
export async function phoneOfIdText(
  executor: Executor,
  accountId: string,
  id: string,
): Promise<{ id: string; phone: string } | undefined> {
  const [phone] = await executor
    .select({ id: phones.id, phone: phones.phone })
    .from(phones)
    .where(and(eq(phones.accountId, accountId), sql`${phones.id}::text = ${id}::text`));
  return phone;
}
