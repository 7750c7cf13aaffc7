// Plain constants (no drizzle): the values of JSON documents (rule actions, automation records)
// and of messages.origin_kind, for the schema and lib/automation alike.

/** What an inbound rule can do, at most `MAX_RULE_ACTIONS` per rule (lib/automation/schemas.ts). */
export const RULE_ACTION_TYPES = ['reply', 'forward_sms', 'forward_email', 'webhook'] as const;
export type RuleActionType = (typeof RULE_ACTION_TYPES)[number];

/** Why an automatic message was sent: a rule, the built-in HELP responder, or a webhook's reply. */
export const MESSAGE_ORIGIN_KINDS = ['rule', 'help', 'webhook_reply'] as const;
export type MessageOriginKind = (typeof MESSAGE_ORIGIN_KINDS)[number];

/**
 * What automation did about an inbound message: a rule's action, HELP, a webhook reply, or
 * `email_reply` (the forward of a reply to an SMS sent by email to the mail's sender).
 */
export const AUTOMATION_ACTIONS = [
  'reply',
  'forward_sms',
  'forward_email',
  'webhook',
  'help',
  'webhook_reply',
  'email_reply',
] as const;
export type AutomationAction = (typeof AUTOMATION_ACTIONS)[number];

/**
 * Why an action was skipped: `limit_reached` (AUTO_REPLY_LIMIT), `account_limit_reached`
 * (AUTO_SMS_ACCOUNT_HOURLY_LIMIT), `no_credit`, `opted_out`, `country_not_allowed` (the
 * allowed_countries list), `country_not_of_phones` (no list is set, and the recipient's country is
 * none of the account's phones'), `phone_cannot_send` (the receiving phone may not send: SIM unverified or
 * gone), `not_a_phone_number` (the sender is a short code or a name), `already_sent` (a reply to
 * this message went out before), `webhook_not_found`, `email_failed`, `sent_by_automation` (the
 * inbound message is another of the account's phones' automatic message: rules never answer those),
 * `email_not_confirmed` (a forward to an address the account has not confirmed), `email_limit_reached`
 * (AUTO_EMAIL_ACCOUNT_HOURLY_LIMIT), `premium_rate` (a premium-rate or shared-cost number, unless
 * AUTO_SMS_PREMIUM_RATE allows them), `step_budget_reached` (the inbound message's actions past
 * AUTOMATION_STEPS_PER_MESSAGE).
 */
export const AUTOMATION_SKIP_REASONS = [
  'limit_reached',
  'account_limit_reached',
  'no_credit',
  'opted_out',
  'country_not_allowed',
  'country_not_of_phones',
  'phone_cannot_send',
  'not_a_phone_number',
  'already_sent',
  'webhook_not_found',
  'email_failed',
  'sent_by_automation',
  'email_not_confirmed',
  'email_limit_reached',
  'premium_rate',
  'step_budget_reached',
  'recipient_quota_reached',
  'queue_full',
] as const;
export type AutomationSkipReason = (typeof AUTOMATION_SKIP_REASONS)[number];

/** One entry of an inbound message's `automation` record. */
export type AutomationEntry = {
  rule_id: string | null;
  action: AutomationAction;
  result: 'sent' | 'skipped';
  reason?: AutomationSkipReason;
  message_id?: string;
  webhook_id?: string;
};
