import { and, asc, count, eq, inArray, sql } from 'drizzle-orm';
import type { Executor, Transaction } from '@/db';
import { accounts, inboundRules, phoneGroups, phones, type StoredRuleAction, webhooks } from '@/db/schema';
import { recordAudit } from '@/lib/audit/record';
import { assertWithinPlanLimit } from '@/lib/billing-plans/limits';
import { isForwardingAllowed, UNCONFIRMED_ADDRESS_MESSAGE } from '@/lib/email/addresses';
import { DomainError, notFound, validationError } from '@/lib/errors';
import { withTransaction } from '@/lib/transactions';
import { iso } from '@/lib/wire';
import {
  type CreateRuleInput,
  MAX_RULES_PER_ACCOUNT,
  type RuleActionInput,
  type RuleWire,
  type UpdateRuleInput,
} from './schemas';

export type RuleRow = typeof inboundRules.$inferSelect;

export function presentRule(row: RuleRow): RuleWire {
  return {
    id: row.id,
    name: row.name,
    enabled: row.enabled,
    position: row.position,
    match: { keyword: row.keyword, pattern: row.pattern, from_prefix: row.fromPrefix },
    scope: { phone_ids: row.scopePhoneIds, group_ids: row.scopeGroupIds },
    actions: row.actions as RuleActionInput[],
    continue: row.continueMatching,
    created_at: iso(row.createdAt) ?? '',
    updated_at: iso(row.updatedAt) ?? '',
  };
}

/** The account's rules in the order they run. */
export async function rulesOf(executor: Executor, accountId: string): Promise<RuleRow[]> {
  return executor
    .select()
    .from(inboundRules)
    .where(eq(inboundRules.accountId, accountId))
    .orderBy(asc(inboundRules.position), asc(inboundRules.createdAt));
}

export async function listRules(executor: Executor, accountId: string): Promise<{ data: RuleWire[] }> {
  return { data: (await rulesOf(executor, accountId)).map(presentRule) };
}

async function ruleOf(executor: Executor, accountId: string, id: string): Promise<RuleRow> {
  const [row] = await executor
    .select()
    .from(inboundRules)
    .where(and(eq(inboundRules.id, id), eq(inboundRules.accountId, accountId)));
  if (!row) throw notFound('Inbound rule');
  return row;
}

export async function getRule(executor: Executor, accountId: string, id: string): Promise<RuleWire> {
  return presentRule(await ruleOf(executor, accountId, id));
}

/**
 * Another account's phone, group or webhook named in a rule answers 404, as everywhere; a forward
 * to an email the account has not confirmed answers 400 naming the action.
 */
async function assertOwnReferences(
  executor: Executor,
  accountId: string,
  input: { scope?: { phone_ids?: string[]; group_ids?: number[] }; actions?: RuleActionInput[] },
): Promise<void> {
  const phoneIds = [...new Set(input.scope?.phone_ids ?? [])];
  if (phoneIds.length > 0) {
    const [found] = await executor
      .select({ n: count() })
      .from(phones)
      .where(and(eq(phones.accountId, accountId), inArray(phones.id, phoneIds)));
    if ((found?.n ?? 0) !== phoneIds.length) throw notFound('Phone');
  }
  const groupIds = [...new Set(input.scope?.group_ids ?? [])];
  if (groupIds.length > 0) {
    const [found] = await executor
      .select({ n: count() })
      .from(phoneGroups)
      .where(and(eq(phoneGroups.accountId, accountId), inArray(phoneGroups.id, groupIds)));
    if ((found?.n ?? 0) !== groupIds.length) throw new DomainError('GROUP_NOT_FOUND', 'Group not found.');
  }
  const webhookIds = [
    ...new Set((input.actions ?? []).flatMap((action) => (action.type === 'webhook' ? [action.webhook_id] : []))),
  ];
  if (webhookIds.length > 0) {
    const [found] = await executor
      .select({ n: count() })
      .from(webhooks)
      .where(and(eq(webhooks.accountId, accountId), eq(webhooks.kind, 'endpoint'), inArray(webhooks.id, webhookIds)));
    if ((found?.n ?? 0) !== webhookIds.length) throw notFound('Webhook');
  }
  for (const [index, action] of (input.actions ?? []).entries()) {
    if (action.type === 'forward_email' && !(await isForwardingAllowed(executor, accountId, action.to))) {
      throw validationError(`actions.${index}.to`, UNCONFIRMED_ADDRESS_MESSAGE);
    }
  }
}

/** Serialises changes to one account's rule order (two creations must not take the same place). */
async function lockRules(tx: Transaction, accountId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`inbound_rules:${accountId}`}, 0))`);
}

/** Rewrites the account's positions as 1..n in the given order. */
async function writeOrder(tx: Transaction, accountId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await tx.execute(sql`
    update inbound_rules r set position = o.position::int
    from unnest(${`{${ids.join(',')}}`}::uuid[]) with ordinality as o(id, position)
    where r.id = o.id and r.account_id = ${accountId}::uuid and r.position <> o.position
  `);
}

/** `ids` with `id` moved to the 1-based `position` (clamped to the list). */
function placed(ids: string[], id: string, position: number | undefined): string[] {
  const rest = ids.filter((other) => other !== id);
  const index = position === undefined ? rest.length : Math.min(Math.max(position - 1, 0), rest.length);
  return [...rest.slice(0, index), id, ...rest.slice(index)];
}

function matchColumns(match: CreateRuleInput['match']) {
  return { keyword: match?.keyword ?? null, pattern: match?.pattern ?? null, fromPrefix: match?.from_prefix ?? null };
}

/** A scope as stored: each list once, empty when not given. */
function scopeColumns(scope: CreateRuleInput['scope']) {
  return { scopePhoneIds: [...new Set(scope?.phone_ids ?? [])], scopeGroupIds: [...new Set(scope?.group_ids ?? [])] };
}

function actionCount(rules: RuleRow[]): number {
  return rules.reduce((total, rule) => total + rule.actions.length, 0);
}

/**
 * The plan's cap on the actions of all the account's rules together (PLAN_*_RULE_ACTIONS): with
 * AUTOMATION_STEPS_PER_MESSAGE, it bounds what one inbound message makes automation plan and
 * record. Rules already past a lowered cap keep working; only a change that adds actions is refused.
 */
async function assertActionsWithinPlan(executor: Executor, accountId: string, total: number): Promise<void> {
  const [account] = await executor.select({ plan: accounts.plan }).from(accounts).where(eq(accounts.id, accountId));
  if (!account) throw notFound('Account');
  assertWithinPlanLimit(account.plan, 'rule_actions', total);
}

export async function createRule(executor: Executor, accountId: string, input: CreateRuleInput): Promise<RuleWire> {
  await assertOwnReferences(executor, accountId, input);
  return withTransaction(executor, async (tx) => {
    await lockRules(tx, accountId);
    const existing = await rulesOf(tx, accountId);
    if (existing.length >= MAX_RULES_PER_ACCOUNT) {
      throw validationError('name', `an account has at most ${MAX_RULES_PER_ACCOUNT} inbound rules`);
    }
    await assertActionsWithinPlan(tx, accountId, actionCount(existing) + input.actions.length);
    const [row] = await tx
      .insert(inboundRules)
      .values({
        accountId,
        name: input.name,
        enabled: input.enabled,
        position: existing.length + 1,
        ...matchColumns(input.match),
        ...scopeColumns(input.scope),
        actions: input.actions as StoredRuleAction[],
        continueMatching: input.continue,
      })
      .returning();
    if (!row) throw new Error('createRule: insert returned no row');
    const order = placed(
      existing.map((rule) => rule.id),
      row.id,
      input.position,
    );
    await writeOrder(tx, accountId, order);
    await recordAudit(tx, { accountId, action: 'inbound_rule.created', target: row.id, details: auditDetails(row) });
    return presentRule(await ruleOf(tx, accountId, row.id));
  });
}

export async function updateRule(
  executor: Executor,
  accountId: string,
  id: string,
  input: UpdateRuleInput,
): Promise<RuleWire> {
  await assertOwnReferences(executor, accountId, input);
  return withTransaction(executor, async (tx) => {
    await lockRules(tx, accountId);
    const current = await ruleOf(tx, accountId, id);
    if (input.actions !== undefined && input.actions.length > current.actions.length) {
      const others = (await rulesOf(tx, accountId)).filter((rule) => rule.id !== id);
      await assertActionsWithinPlan(tx, accountId, actionCount(others) + input.actions.length);
    }
    const [row] = await tx
      .update(inboundRules)
      .set({
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
        ...(input.match !== undefined ? matchColumns(input.match) : {}),
        ...(input.scope !== undefined ? scopeColumns(input.scope) : {}),
        ...(input.actions !== undefined ? { actions: input.actions as StoredRuleAction[] } : {}),
        ...(input.continue !== undefined ? { continueMatching: input.continue } : {}),
        updatedAt: new Date(),
      })
      .where(and(eq(inboundRules.id, id), eq(inboundRules.accountId, accountId)))
      .returning();
    if (!row) throw notFound('Inbound rule');
    if (input.position !== undefined) {
      const order = (await rulesOf(tx, accountId)).map((rule) => rule.id);
      await writeOrder(tx, accountId, placed(order, id, input.position));
    }
    await recordAudit(tx, { accountId, action: 'inbound_rule.updated', target: id, details: auditDetails(row) });
    return presentRule(await ruleOf(tx, accountId, id));
  });
}

export async function deleteRule(executor: Executor, accountId: string, id: string): Promise<void> {
  await withTransaction(executor, async (tx) => {
    await lockRules(tx, accountId);
    const [deleted] = await tx
      .delete(inboundRules)
      .where(and(eq(inboundRules.id, id), eq(inboundRules.accountId, accountId)))
      .returning();
    if (!deleted) throw notFound('Inbound rule');
    await writeOrder(
      tx,
      accountId,
      (await rulesOf(tx, accountId)).map((rule) => rule.id),
    );
    await recordAudit(tx, { accountId, action: 'inbound_rule.deleted', target: id, details: { name: deleted.name } });
  });
}

/** What the audit log keeps of a rule: where it can send things. */
function auditDetails(row: RuleRow): Record<string, unknown> {
  return { name: row.name, enabled: row.enabled, actions: row.actions };
}
