import { and, count, eq } from 'drizzle-orm';
import type { Executor, Transaction } from '@/db';
import { phoneGroups, phones } from '@/db/schema';
import { recordAudit } from '@/lib/audit/record';
import { assertBelowPlanLimit, lockAccountPlan } from '@/lib/billing-plans/limits';
import { DomainError, validationError } from '@/lib/errors';
import { toE164 } from '@/lib/phone-number';
import { isUniqueViolation, withTransaction } from '@/lib/transactions';

export type PhoneRow = typeof phones.$inferSelect;

export type CreatePhoneInput = {
  phone: string;
  label?: string | null;
  /** Defaults to the account's default group. */
  groupId?: number;
  /** The activated device sending for this number, when activation creates the phone. */
  deviceId?: string | null;
};

function duplicatePhone(phone: string): DomainError {
  return new DomainError('DUPLICATE_PHONE', `${phone} is already registered in this account.`);
}

/**
 * Adds a phone number to an account. The account row lock makes the plan check race-free; the
 * unique index on (account, phone) is what finally refuses a duplicate.
 */
export async function createPhone(executor: Executor, accountId: string, input: CreatePhoneInput): Promise<PhoneRow> {
  const phone = toE164(input.phone);
  if (!phone) throw validationError('phone', 'not a valid E.164 phone number (e.g. +14155550100)');
  return withTransaction(executor, async (tx) => {
    const plan = await lockAccountPlan(tx, accountId);
    const groupId = await resolveGroupId(tx, accountId, input.groupId);
    const [existing] = await tx
      .select({ id: phones.id })
      .from(phones)
      .where(and(eq(phones.accountId, accountId), eq(phones.phone, phone)));
    if (existing) throw duplicatePhone(phone);
    const [counted] = await tx.select({ value: count() }).from(phones).where(eq(phones.accountId, accountId));
    assertBelowPlanLimit(plan, 'phones', counted?.value ?? 0);
    try {
      // A savepoint, so a duplicate refused by the index leaves the caller's transaction usable.
      return await tx.transaction(async (savepoint) => {
        const [row] = await savepoint
          .insert(phones)
          .values({ accountId, groupId, phone, label: input.label ?? null, deviceId: input.deviceId ?? null })
          .returning();
        if (!row) throw new Error('createPhone: insert returned no row');
        await recordAudit(savepoint, {
          accountId,
          action: 'phone.added',
          target: row.id,
          details: { phone: row.phone, group_id: row.groupId },
        });
        return row;
      });
    } catch (error) {
      if (isUniqueViolation(error, 'phones_account_phone_key')) throw duplicatePhone(phone);
      throw error;
    }
  });
}

/**
 * The group a phone goes to: the one asked for (if it is the account's) or the default group.
 * The key-share lock keeps the group from being deleted before the caller's transaction ends.
 */
export async function resolveGroupId(tx: Transaction, accountId: string, groupId?: number): Promise<number> {
  const [group] = await tx
    .select({ id: phoneGroups.id })
    .from(phoneGroups)
    .where(
      and(
        eq(phoneGroups.accountId, accountId),
        groupId === undefined ? eq(phoneGroups.isDefault, true) : eq(phoneGroups.id, groupId),
      ),
    )
    .for('key share');
  if (!group) {
    throw new DomainError(
      'GROUP_NOT_FOUND',
      groupId === undefined ? 'The account has no default group.' : `Phone group ${groupId} does not exist.`,
    );
  }
  return group.id;
}
