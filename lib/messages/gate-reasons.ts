import type { AutomationSkipReason } from '@/db/schema/automation-record';

/**
 * What each refusal of an automatic SMS means, in one sentence: the automation log and the rules'
 * test show it, and a verification or SIM-check request refused by the gate answers it. Plain
 * constants, so that the dashboard can import them.
 */
export const SKIP_REASON_TEXT: Record<AutomationSkipReason, string> = {
  limit_reached: 'this number has had its automatic texts for the hour',
  account_limit_reached: 'your account has sent its automatic texts for the hour',
  no_credit: 'not enough credits',
  opted_out: 'the number opted out',
  country_not_allowed: 'the country is not allowed',
  country_not_of_phones: 'the country is none of the sending account’s phones’ (list it in allowed countries)',
  premium_rate: 'the number is premium-rate or shared-cost',
  phone_cannot_send: 'the phone cannot send',
  not_a_phone_number: 'the sender cannot be texted back',
  already_sent: 'this message was answered already',
  webhook_not_found: 'the webhook no longer exists',
  email_failed: 'the email could not be sent',
  sent_by_automation: 'the message was sent by your own automation',
  email_not_confirmed: 'the email address is not confirmed',
  email_limit_reached: 'the account has forwarded its emails for the hour',
  step_budget_reached: 'the inbound message had run its share of rule actions',
  recipient_quota_reached: 'the sending phone has texted its monthly_recipient_cap of new numbers this month',
  queue_full: 'your account has as many messages queued as its max_queued_messages allows',
};
