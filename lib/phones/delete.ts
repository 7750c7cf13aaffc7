import { and, eq, inArray, ne, sql } from 'drizzle-orm';
import type { Executor, Transaction } from '@/db';
import { bulkMessages, devices, messages, pairingCodes, phones, smsgateMessages } from '@/db/schema';
import { recordAudit } from '@/lib/audit/record';
import { clearKeyCache, keysChanged } from '@/lib/auth/key-lookup';
import { markEveryDayChanged } from '@/lib/messages/daily-counts';
import { afterTransition, idIn } from '@/lib/messages/state-machine';
import { withTransaction } from '@/lib/transactions';
import { ownedPhone } from './owned';

/*
 * Lock order, the same on every path that touches a phone and credits, so none can wait on
 * another in a cycle (a deadlock, which Postgres breaks by failing one side: a 503):
 *   1. the phone row: FOR UPDATE here, FOR KEY SHARE in a send or a bulk (lib/messages/send.ts,
 *      lib/messages/bulk.ts), taken explicitly before the charge rather than left to the foreign
 *      key check of the message insert, which runs after it;
 *   2. the existing message rows (here: every one of the phone's, which the cascade deletes, before
 *      anything else; the claims, the expiry sweep, a phone's report on its message);
 *   3. the statistics' rollup rows of old days, in day order (lib/messages/daily-counts.ts, marked
 *      stale by a change to an old message);
 *   4. the group balance rows, in group id order (charges and refunds, lib/credits/ledger.ts).
 * A send's new message rows are invisible to everyone until it commits, so they take no place in it.
 */

export const PHONE_REMOVED_ERROR = 'The phone was removed before sending it.';

/**
 * Removes a phone from the account. Its messages go with it (the schema cascades), so the
 * outbound ones that were paid for and can no longer be sent fail first, as any failed message
 * does: refunded, with their `message.failed` event. Every device credential of its number in the
 * account is revoked in the same transaction.
 */
export async function deletePhone(executor: Executor, accountId: string, phoneId: string): Promise<void> {
  await withTransaction(executor, async (tx) => {
    const phone = await ownedPhone(tx, accountId, phoneId, { lock: 'update' });
    await lockMessagesOf(tx, accountId, phoneId);
    await failUnsent(tx, accountId, phoneId);
    await detachFromPhone(tx, accountId, phoneId);
    await tx.delete(phones).where(and(eq(phones.accountId, accountId), eq(phones.id, phoneId)));
    // Its pairing codes too: they name the phone without a foreign key (db/tenancy.ts).
    await tx.delete(pairingCodes).where(and(eq(pairingCodes.accountId, accountId), eq(pairingCodes.phoneId, phoneId)));
    // The number's device credentials (simulator keys, app tokens) die with the phone: adding the
    // number again later must not bring an old device back.
    await tx
      .update(devices)
      .set({ status: 'revoked' })
      .where(
        and(eq(devices.accountId, accountId), eq(devices.phoneNumber, phone.phone), ne(devices.status, 'revoked')),
      );
    await keysChanged(tx);
    await recordAudit(tx, { accountId, action: 'phone.removed', target: phone.id, details: { phone: phone.phone } });
  });
  clearKeyCache();
}

/**
 * What names the phone or its bulks without a foreign key (Citus refuses `ON DELETE SET NULL (col)` on
 * a key with `account_id`, the distribution column), nulled before the phone goes: the integrator
 * API's sends keep their row without their phone, and messages of the phone's bulks (the bulks go with
 * the phone, by the schema's cascade) keep theirs without the bulk. The one place each is nulled.
 */
async function detachFromPhone(tx: Transaction, accountId: string, phoneId: string): Promise<void> {
  await tx
    .update(smsgateMessages)
    .set({ phoneId: null })
    .where(and(eq(smsgateMessages.accountId, accountId), eq(smsgateMessages.phoneId, phoneId)));
  const bulks = tx
    .select({ id: bulkMessages.id })
    .from(bulkMessages)
    .where(and(eq(bulkMessages.accountId, accountId), eq(bulkMessages.phoneId, phoneId)));
  await tx
    .update(messages)
    .set({ bulkId: null })
    .where(
      and(
        eq(messages.accountId, accountId),
        inArray(messages.bulkId, bulks),
        // The phone's own messages go with it.
        sql`${messages.phoneId} is distinct from ${phoneId}`,
      ),
    );
}

/**
 * Locks every message of the phone, in id order, before the rollups' rows (the lock order above). The
 * cascade deletes them all, and it runs last: left to it, their locks came after `failUnsent` had
 * marked every day stale, so a report on an old message (its row locked, then its day marked) and the
 * deletion each waited for the other, and PostgreSQL failed one of them.
 */
async function lockMessagesOf(tx: Transaction, accountId: string, phoneId: string): Promise<void> {
  await tx.execute(
    sql`select count(*) from (
      select 1 from ${messages}
      where ${messages.accountId} = ${accountId} and ${messages.phoneId} = ${phoneId}
      order by ${messages.id}
      for update
    ) locked`,
  );
}

/**
 * Moves the phone's outbound messages not sent yet (queued, dispatched or cancelling) to `failed`, locked so a
 * claim or an expiry sweep cannot move them meanwhile: the state machine refunds each and emits its
 * event while the message still exists. Every day of the statistics' rollups is marked stale, since
 * the cascade takes all the phone's messages; after these rows' locks and before the refunds' (the
 * lock order above).
 */
async function failUnsent(tx: Transaction, accountId: string, phoneId: string): Promise<void> {
  const at = new Date();
  const unsent = and(
    eq(messages.accountId, accountId),
    eq(messages.phoneId, phoneId),
    eq(messages.direction, 'outbound'),
    inArray(messages.status, ['queued', 'dispatched', 'cancelling']),
  );
  const picked = tx.select({ id: messages.id }).from(messages).where(unsent).for('update');
  const failed = await tx
    .update(messages)
    .set({ status: 'failed', error: PHONE_REMOVED_ERROR, updatedAt: at })
    .where(and(idIn(picked), unsent))
    .returning();
  await markEveryDayChanged(tx, accountId, at);
  await afterTransition(tx, failed, { at, error: PHONE_REMOVED_ERROR });
}
