import { and, eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { phones } from '@/db/schema';
import { DomainError } from '@/lib/errors';

export type SenderPhone = { id: string; groupId: number; phone: string };

/**
 * The account's phone with this number that may send, or 403 FORBIDDEN: not the account's phone
 * (the interface's rule 1), or an app-paired phone whose SIM is not proven yet. `lock` takes the
 * phone's FOR KEY SHARE lock, for a transaction that charges next (the lock order of
 * lib/phones/delete.ts: phone before group).
 */
export async function findSenderPhone(
  executor: Executor,
  accountId: string,
  number: string,
  options: { lock?: boolean } = {},
): Promise<SenderPhone> {
  const query = executor
    .select({ id: phones.id, groupId: phones.groupId, phone: phones.phone, simVerification: phones.simVerification })
    .from(phones)
    .where(and(eq(phones.accountId, accountId), eq(phones.phone, number)));
  const [phone] = await (options.lock ? query.for('key share') : query);
  if (!phone) throw notSenderPhone(number);
  if (phone.simVerification === 'pending') throw simNotVerified(number);
  return { id: phone.id, groupId: phone.groupId, phone: phone.phone };
}

/** Why the one-statement send wrote nothing for a sender it did not find among the phones that may send. */
export async function senderRefusal(executor: Executor, accountId: string, number: string): Promise<DomainError> {
  try {
    await findSenderPhone(executor, accountId, number);
  } catch (error) {
    if (error instanceof DomainError) return error;
    throw error;
  }
  return notSenderPhone(number);
}

function simNotVerified(number: string): DomainError {
  return new DomainError(
    'FORBIDDEN',
    `Phone ${number} is paired with the SMSGate app but its SIM is not verified yet: it sends only its SIM check until the check SMS comes back (or its code is entered on the phone's page).`,
  );
}

/** 403 FORBIDDEN: the number is not a phone of this account. */
export function notSenderPhone(number: string): DomainError {
  return new DomainError('FORBIDDEN', `Phone ${number} is not registered to this account.`);
}
