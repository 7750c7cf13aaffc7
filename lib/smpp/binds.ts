import { and, count, eq, gte, inArray, lt, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { type SmppBindKind, smppBinds } from '@/db/schema';
import { assertBelowPlanLimit, lockAccountPlan } from '@/lib/billing-plans/limits';
import { withTransaction } from '@/lib/transactions';
import { SMPP_BIND_STALE_MS } from './limits';

export type OpenBind = { id: string; accountId: string };

/**
 * Records a bind, within the plan's limit of binds open at once across every instance (403
 * PLAN_LIMIT_REACHED past it). The account row's lock makes concurrent binds count one after another.
 */
export async function openBind(
  executor: Executor,
  bind: { accountId: string; credentialId: string; kind: SmppBindKind },
): Promise<OpenBind> {
  return withTransaction(executor, async (tx) => {
    const plan = await lockAccountPlan(tx, bind.accountId);
    const staleBefore = new Date(Date.now() - SMPP_BIND_STALE_MS);
    // Binds of an instance that died: no longer refreshed, no longer counted.
    await tx.delete(smppBinds).where(and(eq(smppBinds.accountId, bind.accountId), lt(smppBinds.seenAt, staleBefore)));
    const [open] = await tx
      .select({ n: count() })
      .from(smppBinds)
      .where(and(eq(smppBinds.accountId, bind.accountId), gte(smppBinds.seenAt, staleBefore)));
    assertBelowPlanLimit(plan, 'smpp_binds', open?.n ?? 0);
    const [row] = await tx.insert(smppBinds).values(bind).returning({ id: smppBinds.id });
    if (!row) throw new Error('openBind: insert returned no row');
    return { id: row.id, accountId: bind.accountId };
  });
}

export async function closeBind(executor: Executor, bind: OpenBind): Promise<void> {
  await executor.delete(smppBinds).where(and(eq(smppBinds.accountId, bind.accountId), eq(smppBinds.id, bind.id)));
}

/** Marks this instance's binds alive, so that they go on counting toward their accounts' limits. */
export async function refreshBinds(executor: Executor, binds: readonly OpenBind[]): Promise<void> {
  if (binds.length === 0) return;
  await executor
    .update(smppBinds)
    .set({ seenAt: sql`now()` })
    .where(
      and(
        inArray(smppBinds.accountId, [...new Set(binds.map((bind) => bind.accountId))]),
        inArray(
          smppBinds.id,
          binds.map((bind) => bind.id),
        ),
      ),
    );
}
