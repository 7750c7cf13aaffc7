import { and, eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { type AutomationAction, type AutomationSkipReason, accounts, type StoredRuleAction } from '@/db/schema';
import { config } from '@/lib/config';
import { MAX_CONTENT_LENGTH } from '@/lib/messages/limits';
import { optOutWordOf } from '@/lib/opt-outs/words';
import { type InboundFacts, matchBudget, ruleMatches } from './match';
import { rulesOf } from './rules';

/** Whole-message words the built-in HELP responder answers (when the account has set its text). */
export const HELP_WORDS = ['HELP', 'INFO'] as const;

export function isHelpWord(text: string): boolean {
  return (HELP_WORDS as readonly string[]).includes(text.replace(/\s+/g, '').toUpperCase());
}

export type InboundContext = InboundFacts & { accountId: string /** The receiving phone's number. */; phone: string };

/** One thing automation would do about an inbound message, in order. */
export type Step = {
  ruleId: string | null;
  ruleName: string;
  /** Its place in the rule's actions: with the rule id, what makes it once per inbound message. */
  index: number;
  action: AutomationAction;
  sms?: { to: string; content: string };
  email?: { to: string; subject: string; text: string };
  webhookId?: string;
  /** Skipped before it runs: past the message's AUTOMATION_STEPS_PER_MESSAGE (nothing rendered). */
  skipped?: AutomationSkipReason;
};

export type Plan = { optOut: 'opted_out' | 'opted_in' | null; help: boolean; steps: Step[] };

function fitContent(text: string): string {
  return text.length <= MAX_CONTENT_LENGTH ? text : `${text.slice(0, MAX_CONTENT_LENGTH - 1)}…`;
}

const REPLY_VARIABLE = /\{\{\s*(from|text|phone)\s*\}\}/g;

/**
 * A reply's content with {{from}}, {{text}} and {{phone}} filled in (validated at creation), cut
 * to MAX_CONTENT_LENGTH. The text stops growing once it passes that length, so a reply of many
 * `{{text}}` costs no more than one over-long text (never the whole product of the two).
 */
export function renderReply(content: string, inbound: InboundContext): string {
  const values: Record<string, string> = { from: inbound.from, text: inbound.text, phone: inbound.phone };
  let text = '';
  let from = 0;
  for (const match of content.matchAll(REPLY_VARIABLE)) {
    text += content.slice(from, match.index) + (values[match[1] as string] ?? '');
    from = match.index + match[0].length;
    if (text.length > MAX_CONTENT_LENGTH) return fitContent(text);
  }
  return fitContent(text + content.slice(from));
}

function stepOf(action: StoredRuleAction, inbound: InboundContext): Omit<Step, 'ruleId' | 'ruleName' | 'index'> {
  switch (action.type) {
    case 'reply':
      return { action: 'reply', sms: { to: inbound.from, content: renderReply(action.content, inbound) } };
    case 'forward_sms':
      return {
        action: 'forward_sms',
        sms: { to: action.to, content: fitContent(`From ${inbound.from}: ${inbound.text}`) },
      };
    case 'forward_email':
      return {
        action: 'forward_email',
        email: {
          to: action.to,
          subject: `SMS from ${inbound.from} to ${inbound.phone}`,
          text: `${inbound.text}\n\n-- \nReceived by ${inbound.phone} from ${inbound.from}. Sent by a Simgate inbound rule.`,
        },
      };
    case 'webhook':
      return { action: 'webhook', webhookId: action.webhook_id };
  }
}

/**
 * What automation does about an inbound message, decided in one place for the runner
 * (lib/automation/run.ts) and the test endpoint: a stop or start word does nothing else (the
 * opt-out is handled before); then HELP/INFO, when the account has a HELP text; then the enabled
 * rules in `position` order, the first that matches acting, and the next ones only while the
 * rules that acted say `continue`.
 */
export async function planAutomation(executor: Executor, inbound: InboundContext): Promise<Plan> {
  const optOut = optOutWordOf(inbound.text);
  if (optOut) return { optOut: optOut === 'stop' ? 'opted_out' : 'opted_in', help: false, steps: [] };
  if (isHelpWord(inbound.text)) {
    const [account] = await executor
      .select({ helpReply: accounts.helpReply })
      .from(accounts)
      .where(and(eq(accounts.id, inbound.accountId)));
    if (account?.helpReply) {
      return {
        optOut: null,
        help: true,
        steps: [
          {
            ruleId: null,
            ruleName: 'HELP',
            index: 0,
            action: 'help',
            sms: { to: inbound.from, content: renderReply(account.helpReply, inbound) },
          },
        ],
      };
    }
  }
  const steps: Step[] = [];
  const budget = matchBudget();
  // The message's work budget: past it, the actions are listed as skipped, and nothing is
  // rendered or run for them (the plan's rules hold at most PLAN_*_RULE_ACTIONS actions).
  const maxSteps = config.automationStepsPerMessage;
  for (const rule of await rulesOf(executor, inbound.accountId)) {
    if (!rule.enabled || !(await ruleMatches(rule, inbound, budget))) continue;
    rule.actions.forEach((action, index) => {
      const step = { ruleId: rule.id, ruleName: rule.name, index };
      steps.push(
        steps.length < maxSteps
          ? { ...step, ...stepOf(action, inbound) }
          : { ...step, action: action.type, skipped: 'step_budget_reached' },
      );
    });
    if (!rule.continueMatching) break;
  }
  return { optOut: null, help: false, steps };
}
