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
      description:
        'SMS actions (`reply`, `forward_sms`) send ordinary messages from the receiving phone, charged one credit to its group, tagged with `origin`; without credit, or past AUTO_REPLY_LIMIT automatic SMS to one number in an hour, the action is skipped and recorded on the inbound message’s `automation`. A phone, group or webhook of another account answers 404.',
      tags: ['Inbound automation'],
      response: { description: 'The rule.', schema: ruleSchema },
      errors: ['NOT_FOUND', 'GROUP_NOT_FOUND'],
    },
  },
  async ({ db, principal, body }) => json(await createRule(db, principal.accountId, body), 201),
);
