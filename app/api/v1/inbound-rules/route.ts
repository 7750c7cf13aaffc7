import { MAX_PATTERN_INSTRUCTIONS } from '@/lib/automation/match';
import { createRule, listRules } from '@/lib/automation/rules';
import { createRuleBody, ruleListSchema, ruleSchema } from '@/lib/automation/schemas';
import { json, route } from '@/lib/http/route';

export const GET = route(
  {
    auth: 'account',
    doc: {
      operationId: 'listInboundRules',
      summary: 'List inbound rules',
      description:
        'Every rule of the account (at most 100), in the order they run. When an inbound SMS is stored, the first enabled rule that matches acts; later ones act too only while the rules that acted say `continue`. STOP/START words and HELP run before any rule.',
      tags: ['Inbound automation'],
      response: { description: 'The rules in order.', schema: ruleListSchema },
    },
  },
  async ({ db, principal }) => listRules(db, principal.accountId),
);

export const POST = route(
  {
    auth: 'account',
    body: createRuleBody,
    status: 201,
    doc: {
      operationId: 'createInboundRule',
      summary: 'Create an inbound rule',
      description: `SMS actions (\`reply\`, \`forward_sms\`) send ordinary messages from the receiving phone, charged one credit to its group, tagged with \`origin\`; without credit, past AUTO_REPLY_LIMIT automatic SMS to one number or AUTO_SMS_ACCOUNT_HOURLY_LIMIT for the account in an hour, or to a country outside \`allowed_countries\` (when none is set: outside the countries of your phones), the action is skipped and recorded on the inbound message’s \`automation\`. A \`match.pattern\` whose compiled program holds more than ${MAX_PATTERN_INSTRUCTIONS} instructions answers 400. A phone, group or webhook of another account answers 404. A rule whose actions would take the account’s rules past its plan’s action cap (PLAN_FREE_RULE_ACTIONS / PLAN_PRO_RULE_ACTIONS, all rules together) answers 403 PLAN_LIMIT_REACHED.`,
      tags: ['Inbound automation'],
      response: { description: 'The rule.', schema: ruleSchema },
      errors: ['NOT_FOUND', 'GROUP_NOT_FOUND', 'PLAN_LIMIT_REACHED'],
    },
  },
  async ({ db, principal, body }) => json(await createRule(db, principal.accountId, body), 201),
);
