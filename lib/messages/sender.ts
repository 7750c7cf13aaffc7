import { and, eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { phones } from '@/db/schema';
import { DomainError } from '@/lib/errors';

export type SenderPhone = { id: string; groupId: number; phone: string };

/** The account's phone with this number, or 403 FORBIDDEN (the interface's rule 1). */
export async function findSenderPhone(executor: Executor, accountId: string, number: string): Promise<SenderPhone> {
  const [phone] = await executor
    .select({ id: phones.id, groupId: phones.groupId, phone: phones.phone })
    .from(phones)
    .where(and(eq(phones.accountId, accountId), eq(phones.phone, number)));
  if (!phone) throw notSenderPhone(number);
  return phone;
}

/** 403 FORBIDDEN: the number is not a phone of this account. */
export function notSenderPhone(number: string): DomainError {
  return new DomainError('FORBIDDEN', `Phone ${number} is not registered to this account.`);
}
