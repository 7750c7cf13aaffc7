import { and, eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { phoneGroups, webhooks } from '@/db/schema';
import { config } from '@/lib/config';
import { accountAutomaticSendsInLastHour, automaticSendsInLastHour, screenRecipient } from '@/lib/messages/pipeline';
import { countSegments } from '@/lib/messages/segments';
import { isOptedOut } from '@/lib/opt-outs/check';
import { ownedPhoneByNumber } from '@/lib/phones/owned';
import { planAutomation } from './decide';
import { forwardSkipReason } from './forward-email';
import type { PlannedActionWire, TestRuleAnswer } from './schemas';

/**
 * POST /api/v1/inbound-rules/test: what automation would do if `from` texted `text` to `phone`
 * now, from the same plan the runner follows, with the skips it can foresee (the gate's recipient
 * screens, limits, credit, opt-out). Reads only.
 */
export async function previewAutomation(
  executor: Executor,
  accountId: string,
  input: { phone: string; from: string; text: string },
): Promise<TestRuleAnswer> {
  const phone = await ownedPhoneByNumber(executor, accountId, input.phone);
  const [group] = await executor
    .select({ balance: phoneGroups.balance })
    .from(phoneGroups)
    .where(and(eq(phoneGroups.accountId, accountId), eq(phoneGroups.id, phone.groupId)));
  const plan = await planAutomation(executor, {
    accountId,
    phoneId: phone.id,
    groupId: phone.groupId,
    phone: input.phone,
    from: input.from,
    text: input.text,
  });
  let sentSoFar = await automaticSendsInLastHour(executor, accountId, input.from);
  let accountSoFar = await accountAutomaticSendsInLastHour(executor, accountId);
  let credits = 0;
  const rules: TestRuleAnswer['rules'] = [];
  for (const step of plan.steps) {
    let planned: PlannedActionWire;
    if (step.skipped) {
      planned = { action: step.action, would: 'skip', reason: step.skipped };
    } else if (step.sms) {
      const { encoding, segments } = countSegments(step.sms.content);
      planned = { action: step.action, would: 'send', to: step.sms.to, content: step.sms.content, segments, encoding };
      const reason =
        (await screenRecipient(executor, {
          origin: step.ruleId ? 'rule_reply' : 'help_reply',
          accountId,
          counterpart: input.from,
          from: input.phone,
          to: step.sms.to,
        })) ??
        (sentSoFar >= config.autoReplyLimit
          ? ('limit_reached' as const)
          : accountSoFar >= config.autoSmsAccountHourlyLimit
            ? ('account_limit_reached' as const)
            : credits + 1 > (group?.balance ?? 0)
              ? ('no_credit' as const)
              : (await isOptedOut(executor, accountId, step.sms.to))
                ? ('opted_out' as const)
                : undefined);
      if (reason) planned = { ...planned, would: 'skip', reason };
      else {
        planned.credits = 1;
        credits += 1;
        sentSoFar += 1;
        accountSoFar += 1;
      }
    } else if (step.email) {
      planned = { action: step.action, would: 'send', to: step.email.to, content: step.email.text };
      const reason = await forwardSkipReason(executor, accountId, input.from, step.email.to);
      if (reason) planned = { ...planned, would: 'skip', reason };
    } else {
      const webhookId = step.webhookId as string;
      const exists = await executor
        .select({ id: webhooks.id })
        .from(webhooks)
        .where(and(eq(webhooks.id, webhookId), eq(webhooks.accountId, accountId)));
      planned = exists.length
        ? { action: step.action, would: 'send', webhook_id: webhookId }
        : { action: step.action, would: 'skip', reason: 'webhook_not_found', webhook_id: webhookId };
    }
    const last = rules.at(-1);
    if (last && last.rule_id === step.ruleId) last.actions.push(planned);
    else rules.push({ rule_id: step.ruleId, name: step.ruleName, actions: [planned] });
  }
  return { opt_out: plan.optOut, help: plan.help, rules, credits };
}
