import { AUTOMATION_ACTIONS, AUTOMATION_SKIP_REASONS, RULE_ACTION_TYPES } from '@/db/schema/automation-record';
import { MAX_CONTENT_LENGTH } from '@/lib/messages/limits';
import { e164 } from '@/lib/phone-number';
import { z } from '@/lib/zod';
import {
  MAX_MATCHED_TEXT,
  MAX_PATTERN_INSTRUCTIONS,
  MAX_PATTERN_LENGTH,
  patternProblem,
  REPLY_VARIABLES,
} from './match';

export const MAX_RULES_PER_ACCOUNT = 100;
export const MAX_RULE_ACTIONS = 5;
const MAX_SCOPE_IDS = 100;

const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g;

const replyContent = z
  .string()
  .trim()
  .min(1)
  .max(MAX_CONTENT_LENGTH)
  .superRefine((content, ctx) => {
    for (const [, name] of content.matchAll(PLACEHOLDER)) {
      if (!(REPLY_VARIABLES as readonly string[]).includes(name ?? '')) {
        ctx.addIssue({
          code: 'custom',
          message: `unknown variable {{${name}}}: use ${REPLY_VARIABLES.map((v) => `{{${v}}}`).join(', ')}`,
        });
      }
    }
  })
  .openapi({
    description:
      'The text sent back. `{{from}}` is the sender’s number, `{{text}}` their message, `{{phone}}` the number of your phone that received it.',
    example: 'Thanks {{from}}, we are open 9–5, Monday to Friday.',
  });

export const ruleActionSchema = z
  .discriminatedUnion('type', [
    z
      .strictObject({ type: z.literal('reply'), content: replyContent })
      .openapi('ReplyAction', { description: 'Text the sender back, from the phone that received the message.' }),
    z.strictObject({ type: z.literal('forward_sms'), to: e164 }).openapi('ForwardSmsAction', {
      description:
        'Text `From <sender>: <message>` to another number, from the phone that received it (charged like a reply).',
    }),
    z.strictObject({ type: z.literal('forward_email'), to: z.email().max(254) }).openapi('ForwardEmailAction', {
      description:
        'Email the message (through the service’s mail transport; the dev inbox in local mode), after the inbound message is stored. `to` must be the account’s own email or an address confirmed through `/api/v1/email-addresses`; forwards count in `auto_reply_limit` and in AUTO_EMAIL_ACCOUNT_HOURLY_LIMIT.',
    }),
    z.strictObject({ type: z.literal('webhook'), webhook_id: z.uuid() }).openapi('WebhookAction', {
      description:
        'Deliver the message’s `message.received` event to this webhook of yours, even when it does not subscribe to that event.',
    }),
  ])
  .openapi({ description: `One of: ${RULE_ACTION_TYPES.join(', ')}.` });

export type RuleActionInput = z.output<typeof ruleActionSchema>;

const keyword = z.string().trim().min(1).max(50).regex(/^\S+$/, 'one word, without spaces').openapi({
  description: 'Matches when it is the first word of the text, ignoring case and accents.',
  example: 'HOURS',
});

const pattern = z
  .string()
  .min(1)
  .max(MAX_PATTERN_LENGTH)
  .superRefine((value, ctx) => {
    const problem = patternProblem(value);
    if (problem) ctx.addIssue({ code: 'custom', message: `refused by the RE2 engine: ${problem}` });
  })
  .openapi({
    description: `An RE2 regular expression searched anywhere in the text (its first ${MAX_MATCHED_TEXT} characters; \`(?i)\` ignores case). RE2 runs in time linear in the text; what needs backtracking (backreferences, lookaround) is refused, and so is a pattern whose compiled program holds more than ${MAX_PATTERN_INSTRUCTIONS} instructions (counted repetitions like \`{1,100}\` multiply it).`,
    example: '(?i)\\border\\s+#?\\d{4,}',
  });

const fromPrefix = z
  .string()
  .regex(/^\+\d{1,15}$/, 'an E.164 prefix: + and 1 to 15 digits')
  .openapi({ description: 'Only senders whose number starts with this (e.g. `+44`).', example: '+44' });

const matchSchema = z
  .strictObject({
    keyword: keyword.nullable().optional(),
    pattern: pattern.nullable().optional(),
    from_prefix: fromPrefix.nullable().optional(),
  })
  .superRefine((match, ctx) => {
    if (match.keyword != null && match.pattern != null) {
      ctx.addIssue({ code: 'custom', path: ['pattern'], message: 'give a keyword or a pattern, not both' });
    }
  })
  .openapi('InboundRuleMatch', {
    description: 'All given conditions must hold; an empty match (or none) matches every inbound message.',
  });

const scopeSchema = z
  .strictObject({
    phone_ids: z.array(z.uuid()).max(MAX_SCOPE_IDS).optional(),
    group_ids: z.array(z.number().int().positive()).max(MAX_SCOPE_IDS).optional(),
  })
  .openapi('InboundRuleScope', {
    description:
      'The receiving phones the rule answers for: these phones, and the phones of these groups. Both empty (the default): every phone.',
  });

const actionList = z.array(ruleActionSchema).min(1).max(MAX_RULE_ACTIONS);

const ruleFields = {
  name: z.string().trim().min(1).max(100),
  enabled: z.boolean(),
  position: z
    .number()
    .int()
    .min(1)
    .openapi({ description: '1-based place among your rules; others move to make room. Default: last.' }),
  match: matchSchema,
  scope: scopeSchema,
  actions: actionList,
  continue: z.boolean().openapi({ description: 'After acting, let later rules act on the message too.' }),
};

export const createRuleBody = z
  .strictObject({
    name: ruleFields.name,
    enabled: ruleFields.enabled.default(true),
    position: ruleFields.position.optional(),
    match: ruleFields.match.optional(),
    scope: ruleFields.scope.optional(),
    actions: ruleFields.actions,
    continue: ruleFields.continue.default(false),
  })
  .openapi('CreateInboundRule');

export const updateRuleBody = z
  .strictObject({
    name: ruleFields.name.optional(),
    enabled: ruleFields.enabled.optional(),
    position: ruleFields.position.optional(),
    match: ruleFields.match.optional(),
    scope: ruleFields.scope.optional(),
    actions: ruleFields.actions.optional(),
    continue: ruleFields.continue.optional(),
  })
  .openapi('UpdateInboundRule');

export type CreateRuleInput = z.output<typeof createRuleBody>;
export type UpdateRuleInput = z.output<typeof updateRuleBody>;

export const ruleParams = z.object({ id: z.uuid() });

const timestamp = z.string().openapi({ format: 'date-time' });

export const ruleSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    enabled: z.boolean(),
    position: z.number().int(),
    match: z.object({
      keyword: z.string().nullable(),
      pattern: z.string().nullable(),
      from_prefix: z.string().nullable(),
    }),
    scope: z.object({ phone_ids: z.array(z.uuid()), group_ids: z.array(z.number().int()) }),
    actions: z.array(ruleActionSchema),
    continue: z.boolean(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .openapi('InboundRule');

export type RuleWire = z.infer<typeof ruleSchema>;

export const ruleListSchema = z.object({ data: z.array(ruleSchema) }).openapi('InboundRuleList');

export const automationSettingsSchema = z
  .object({
    help_reply: z.string().nullable().openapi({
      description:
        'Texted back to an inbound HELP or INFO (the whole text, any case), before any rule; null (the default) turns the built-in HELP responder off.',
      example: 'Acme Dental: reply STOP to opt out. Call +14155550100 for appointments.',
    }),
    auto_reply_limit: z.number().int().openapi({
      description:
        'AUTO_REPLY_LIMIT: automatic SMS and forward emails one number can trigger per account in any hour (rules, HELP and webhook replies together).',
    }),
    auto_sms_account_hourly_limit: z.number().int().openapi({
      description: 'AUTO_SMS_ACCOUNT_HOURLY_LIMIT: automatic SMS the account sends in any hour, whoever triggers them.',
    }),
  })
  .openapi('AutomationSettings');

export const automationSettingsBody = z
  .strictObject({ help_reply: z.string().trim().min(1).max(MAX_CONTENT_LENGTH).nullable() })
  .openapi('UpdateAutomationSettings');

export const testRuleBody = z
  .strictObject({
    phone: e164.openapi({ description: 'Your phone that would receive the message.' }),
    from: z.string().trim().min(1).max(32).openapi({ description: 'The sender.', example: '+14155550123' }),
    text: z.string().min(1).max(MAX_CONTENT_LENGTH),
  })
  .openapi('TestInboundRules');

const plannedAction = z
  .object({
    action: z.enum(AUTOMATION_ACTIONS),
    would: z.enum(['send', 'skip']),
    reason: z.enum(AUTOMATION_SKIP_REASONS).optional(),
    to: z.string().optional().openapi({ description: 'Recipient (number or email).' }),
    content: z.string().optional().openapi({ description: 'The rendered text.' }),
    segments: z.number().int().optional(),
    encoding: z.string().optional(),
    credits: z.number().int().optional(),
    webhook_id: z.uuid().optional(),
  })
  .openapi('PlannedAutomationAction');

export type PlannedActionWire = z.infer<typeof plannedAction>;

export const testRuleAnswerSchema = z
  .object({
    opt_out: z.enum(['opted_out', 'opted_in']).nullable().openapi({
      description: 'The text is a stop or start word: it would change the opt-out, and no rule would run.',
    }),
    help: z.boolean().openapi({ description: 'The built-in HELP responder would answer (and no rule would run).' }),
    rules: z.array(
      z.object({
        rule_id: z.uuid().nullable(),
        name: z.string(),
        actions: z.array(plannedAction),
      }),
    ),
    credits: z.number().int().openapi({ description: 'Credits the SMS actions would cost.' }),
  })
  .openapi('InboundRulesTestResult');

export type TestRuleAnswer = z.infer<typeof testRuleAnswerSchema>;
