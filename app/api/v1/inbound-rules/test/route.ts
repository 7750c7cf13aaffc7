import { previewAutomation } from '@/lib/automation/preview';
import { testRuleAnswerSchema, testRuleBody } from '@/lib/automation/schemas';
import { route } from '@/lib/http/route';

export const POST = route(
  {
    auth: 'account',
    body: testRuleBody,
    doc: {
      operationId: 'testInboundRules',
      summary: 'Try the inbound rules on a message',
      description:
        'What would happen if `from` texted `text` to your phone `phone` now: the opt-out word, HELP, or the rules that would act, with each action’s rendered text, segments and credits, and the skips that can be foreseen (limit, credit, opt-out). One message runs at most AUTOMATION_STEPS_PER_MESSAGE actions: the ones past it are listed as skipped with `step_budget_reached`. Writes nothing.',
      tags: ['Inbound automation'],
      response: { description: 'The plan.', schema: testRuleAnswerSchema },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, body }) => previewAutomation(db, principal.accountId, body),
);
