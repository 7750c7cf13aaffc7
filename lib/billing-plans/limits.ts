import { eq } from 'drizzle-orm';
import type { Transaction } from '@/db';
import { accounts, type PlanName } from '@/db/schema';
import { config } from '@/lib/config';
import { DomainError } from '@/lib/errors';

export type PlanResource = 'phones' | 'groups' | 'webhooks' | 'rule_actions' | 'smpp_binds';

const RESOURCE_NAMES: Record<PlanResource, string> = {
  phones: 'phone(s)',
  groups: 'group(s)',
  webhooks: 'webhook(s)',
  rule_actions: 'inbound-rule action(s), all rules together',
  smpp_binds: 'SMPP bind(s) at once',
};

/**
 * Locks the account row for the rest of the transaction and returns its plan. Every create that
 * is bounded by the plan takes this lock first, so concurrent creates count one after another
 * and cannot all slip past the limit. `no key update`, not `update`: the foreign-key checks of
 * every insert that names the account (ledger rows, messages) take a key-share lock on this row,
 * and a full update lock would make a transfer (holding its groups) and a create (holding the
 * account) wait on each other for ever.
 */
export async function lockAccountPlan(tx: Transaction, accountId: string): Promise<PlanName> {
  const [account] = await tx
    .select({ plan: accounts.plan })
    .from(accounts)
    .where(eq(accounts.id, accountId))
    .for('no key update');
  if (!account) throw new DomainError('NOT_FOUND', 'Account not found.');
  return account.plan;
}

/** Throws PLAN_LIMIT_REACHED when one more `resource` would exceed the plan's maximum. */
export function assertBelowPlanLimit(plan: PlanName, resource: PlanResource, currentCount: number): void {
  assertWithinPlanLimit(plan, resource, currentCount + 1);
}

/** Throws PLAN_LIMIT_REACHED when `total` of `resource` would exceed the plan's maximum. */
export function assertWithinPlanLimit(plan: PlanName, resource: PlanResource, total: number): void {
  const maximum = config.planLimits[plan][resource];
  if (total > maximum) {
    throw new DomainError(
      'PLAN_LIMIT_REACHED',
      `The ${plan} plan allows at most ${maximum} ${RESOURCE_NAMES[resource]}.`,
      { extra: { plan, limit: maximum, resource } },
    );
  }
}
