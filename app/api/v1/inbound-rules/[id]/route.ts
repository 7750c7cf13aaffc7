import { deleteRule, getRule, updateRule } from '@/lib/automation/rules';
import { ruleParams, ruleSchema, updateRuleBody } from '@/lib/automation/schemas';
import { route } from '@/lib/http/route';

export const GET = route(
  {
    auth: 'account',
    params: ruleParams,
    doc: {
      operationId: 'getInboundRule',
      summary: 'Read an inbound rule',
      tags: ['Inbound automation'],
      response: { description: 'The rule.', schema: ruleSchema },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, params }) => getRule(db, principal.accountId, params.id),
);

export const PATCH = route(
  {
    auth: 'account',
    params: ruleParams,
    body: updateRuleBody,
    doc: {
      operationId: 'updateInboundRule',
      summary: 'Update or move an inbound rule',
      description:
        'Only the fields sent change; `match`, `scope` and `actions` are replaced whole. `position` moves the rule there and renumbers the others 1..n. New `actions` that would take the account’s rules past its plan’s action cap (PLAN_FREE_RULE_ACTIONS / PLAN_PRO_RULE_ACTIONS, all rules together) answer 403 PLAN_LIMIT_REACHED.',
      tags: ['Inbound automation'],
      response: { description: 'The rule.', schema: ruleSchema },
      errors: ['NOT_FOUND', 'GROUP_NOT_FOUND', 'PLAN_LIMIT_REACHED'],
    },
  },
  async ({ db, principal, params, body }) => updateRule(db, principal.accountId, params.id, body),
);

export const DELETE = route(
  {
    auth: 'account',
    params: ruleParams,
    doc: {
      operationId: 'deleteInboundRule',
      summary: 'Delete an inbound rule',
      description: 'The rules after it move up. Messages it sent keep their `origin`.',
      tags: ['Inbound automation'],
      response: { description: 'Deleted.' },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, params }) => deleteRule(db, principal.accountId, params.id),
);
