import { eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { accounts, PLANS, type PlanName } from '@/db/schema';
import { OPERATOR } from '@/lib/audit/actor';
import { recordAudit } from '@/lib/audit/record';
import { validationError } from '@/lib/errors';
import { withTransaction } from '@/lib/transactions';
import { findAccount } from './accounts';

export function isPlan(value: string): value is PlanName {
  return (PLANS as readonly string[]).includes(value);
}

/**
 * Sets an account's plan. A lower plan refuses new phones and groups past its maximum; the ones
 * the account already has stay.
 */
export async function setPlan(executor: Executor, reference: string, plan: string) {
  if (!isPlan(plan)) throw validationError('plan', `must be one of ${PLANS.join(', ')}`);
  return withTransaction(executor, async (tx) => {
    const account = await findAccount(tx, reference);
    await tx.update(accounts).set({ plan }).where(eq(accounts.id, account.id));
    await recordAudit(tx, {
      accountId: account.id,
      action: 'plan.changed',
      details: { from: account.plan, to: plan },
      actor: OPERATOR,
    });
    return { accountId: account.id, email: account.email, previousPlan: account.plan, plan };
  });
}
