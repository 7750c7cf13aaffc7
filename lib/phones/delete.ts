import { and, eq, inArray, isNotNull, isNull, ne } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import type { Executor, Transaction } from '@/db';
import { creditLedger, devices, messages, phones } from '@/db/schema';
import { clearKeyCache } from '@/lib/auth/authenticate';
import { moveCredits } from '@/lib/credits/ledger';
import { withTransaction } from '@/lib/db';
import { notFound } from '@/lib/errors';

/**
 * Removes a phone from the account. Its messages go with it (the schema cascades), so the
 * outbound ones that were paid for and can no longer be sent are refunded first; every device
 * credential of its number in the account is revoked in the same transaction.
 */
export async function deletePhone(executor: Executor, accountId: string, phoneId: string): Promise<void> {
  await withTransaction(executor, async (tx) => {
    const [phone] = await tx
      .select({ id: phones.id, phone: phones.phone })
      .from(phones)
      .where(and(eq(phones.accountId, accountId), eq(phones.id, phoneId)))
      .for('update');
    if (!phone) throw notFound('Phone');
    for (const charge of await unsentCharges(tx, phoneId)) {
      await moveCredits(tx, {
        accountId,
        groupId: charge.groupId,
        amount: -charge.amount,
        kind: 'refund',
        messageId: charge.messageId,
      });
    }
    await tx.delete(phones).where(eq(phones.id, phoneId));
    // The number's device credentials (simulator keys, app tokens) die with the phone: adding the
    // number again later must not bring an old device back.
    await tx
      .update(devices)
      .set({ status: 'revoked' })
      .where(
        and(eq(devices.accountId, accountId), eq(devices.phoneNumber, phone.phone), ne(devices.status, 'revoked')),
      );
  });
  clearKeyCache();
}

/**
 * The phone's queued or dispatched messages with their charge and no refund yet, locked so a
 * claim or an expiry sweep cannot move them meanwhile. A refund goes to the message's group.
 */
async function unsentCharges(tx: Transaction, phoneId: string) {
  const charges = alias(creditLedger, 'charges');
  const refunds = alias(creditLedger, 'refunds');
  const rows = await tx
    .select({ messageId: messages.id, groupId: messages.groupId, amount: charges.amount })
    .from(messages)
    .innerJoin(charges, and(eq(charges.messageId, messages.id), eq(charges.kind, 'message_charge')))
    .leftJoin(refunds, and(eq(refunds.messageId, messages.id), eq(refunds.kind, 'refund')))
    .where(
      and(
        eq(messages.phoneId, phoneId),
        eq(messages.direction, 'outbound'),
        inArray(messages.status, ['queued', 'dispatched']),
        isNotNull(messages.groupId),
        isNull(refunds.id),
      ),
    )
    .for('update', { of: messages });
  return rows.flatMap((row) => (row.groupId !== null && row.amount < 0 ? [{ ...row, groupId: row.groupId }] : []));
}
