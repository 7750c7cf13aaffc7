import { sql } from 'drizzle-orm';
import {
  type AnyPgColumn,
  boolean,
  check,
  integer,
  jsonb,
  pgTable,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { ALERT_KINDS, ALERT_RULES, type AlertKind } from './alert-kinds';
import { checkIn } from './check-in';
import { RETENTION_MODES } from './retention-modes';

export const PLANS = ['free', 'pro'] as const;
export const EMAIL_SMS_OVER_LENGTH = ['refuse', 'truncate'] as const;
export type PlanName = (typeof PLANS)[number];

/** Quiet hours: normal-priority messages are handed to phones only inside this window (lib/settings). */
export type SendWindow = { time_zone: string; days: string[]; start: string; end: string };
export const MAX_ATTEMPTS_RANGE = { min: 1, max: 5, default: 2 } as const;
/** Queued messages an account holds at most by default (Settings → Sending, `max_queued_messages`). */
export const ACCOUNT_QUEUE_DEFAULT = 100_000;
/** Seconds within which a second identical inbound SMS is a duplicate (`inbound_dedup_seconds`). */
export const INBOUND_DEDUP_RANGE = { min: 0, max: 86_400, default: 120 } as const;

export const accounts = pgTable(
  'accounts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    // Stored lower-cased and trimmed: an email identifies the account it binds to.
    email: text('email').notNull(),
    plan: text('plan', { enum: PLANS }).notNull().default('free'),
    // Every dashboard session carries the version it was opened at and is refused once this moves
    // past it: signing out, or "sign out everywhere", ends the account's sessions by bumping it.
    sessionVersion: integer('session_version').notNull().default(0),
    // Sent back to a number that texts a stop word (null: no confirmation, the default).
    optOutReply: text('opt_out_reply'),
    // Texted back to an inbound HELP or INFO (null: the built-in HELP responder is off, the default).
    helpReply: text('help_reply'),
    // Sending settings (GET/PATCH /api/v1/settings/sending); a group may override each.
    sendWindow: jsonb('send_window').$type<SendWindow>(),
    maxAttempts: smallint('max_attempts').notNull().default(MAX_ATTEMPTS_RANGE.default),
    allowedCountries: text('allowed_countries').array(),
    // Back-pressure: a send that would take the account's queued messages past this answers 429 QUEUE_FULL
    // (the operator's ACCOUNT_MAX_QUEUED caps it).
    maxQueuedMessages: integer('max_queued_messages').notNull().default(ACCOUNT_QUEUE_DEFAULT),
    // A send without `smart_encoding` replaces GSM-7 look-alikes when this is on (lib/messages/smart-encoding.ts).
    smartEncoding: boolean('smart_encoding').notNull().default(false),
    // An inbound SMS like one recorded this many seconds before (same phone, sender, text) is a duplicate; 0: off.
    inboundDedupSeconds: integer('inbound_dedup_seconds').notNull().default(INBOUND_DEDUP_RANGE.default),
    // Alert thresholds (GET/PATCH /api/v1/settings/alerts, lib/alerts); null turns that alert off.
    alertPhoneOfflineMinutes: integer('alert_phone_offline_minutes').default(ALERT_RULES.phone_offline.default),
    alertBatteryBelowPercent: integer('alert_battery_below_percent').default(ALERT_RULES.battery_low.default),
    alertQueuedOlderThanMinutes: integer('alert_queued_older_than_minutes').default(ALERT_RULES.queue_stalled.default),
    alertGroupBalanceBelow: integer('alert_group_balance_below'),
    alertPhonePausedMinutes: integer('alert_phone_paused_minutes').default(ALERT_RULES.phone_paused.default),
    alertWebhookFailuresInARow: integer('alert_webhook_failures_in_a_row').default(ALERT_RULES.webhook_failing.default),
    // whsec_… secret signing status callbacks (status_callback_url), sealed like webhook secrets.
    callbackSecretEncrypted: text('callback_secret_encrypted'),
    // SMSGate integrator surface: the key signing its webhooks (sealed), and its settings document.
    smsgateSigningKeyEncrypted: text('smsgate_signing_key_encrypted'),
    smsgateSettings: jsonb('smsgate_settings').$type<Record<string, unknown>>(),
    // Retention of message content (GET/PATCH /api/v1/settings/data): null follows the instance's
    // RETENTION_* settings; an account may only keep less than the instance does (lib/retention).
    retentionContentDays: integer('retention_content_days'),
    retentionContentMode: text('retention_content_mode', { enum: RETENTION_MODES }),
    retentionHashCounterpart: boolean('retention_hash_counterpart'),
    // Twilio-compatible API (lib/protocols/twilio): the Account SID (derived from the id, stored once an
    // Auth Token exists, so that Basic auth finds the account by it) and the Auth Token, sealed.
    twilioAccountSid: text('twilio_account_sid'),
    twilioAuthTokenEncrypted: text('twilio_auth_token_encrypted'),
    // Email to SMS (GET/PATCH /api/v1/settings/email-to-sms, lib/email-to-sms): whether the subject
    // opens the text, and what a text past the length limit does (refused with 552, or truncated).
    emailSmsSubject: boolean('email_sms_subject').notNull().default(false),
    emailSmsOverLength: text('email_sms_over_length', { enum: EMAIL_SMS_OVER_LENGTH }).notNull().default('refuse'),
    // Whether an SMS answering an SMS sent by email is forwarded to the mail's sender (email_sms_senders).
    emailSmsForwardReplies: boolean('email_sms_forward_replies').notNull().default(false),
    // Every member must sign in with a second factor (PATCH /api/v1/settings/security, owners only).
    requireTwoFactor: boolean('require_two_factor').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => {
    const alertThresholds: Record<AlertKind, AnyPgColumn> = {
      phone_offline: t.alertPhoneOfflineMinutes,
      battery_low: t.alertBatteryBelowPercent,
      queue_stalled: t.alertQueuedOlderThanMinutes,
      phone_paused: t.alertPhonePausedMinutes,
      group_balance_low: t.alertGroupBalanceBelow,
      webhook_failing: t.alertWebhookFailuresInARow,
    };
    return [
      // Binding an email that exists joins its account: the lookup and the race both rest here.
      uniqueIndex('accounts_email_key').on(t.email),
      uniqueIndex('accounts_twilio_account_sid_key')
        .on(t.twilioAccountSid)
        .where(sql`${t.twilioAccountSid} is not null`),
      checkIn('accounts_plan_check', t.plan, PLANS),
      checkIn('accounts_retention_content_mode_check', t.retentionContentMode, RETENTION_MODES),
      checkIn('accounts_email_sms_over_length_check', t.emailSmsOverLength, EMAIL_SMS_OVER_LENGTH),
      check(
        'accounts_retention_content_days_check',
        sql`${t.retentionContentDays} is null or ${t.retentionContentDays} >= 1`,
      ),
      check('accounts_max_queued_messages_range', sql`${t.maxQueuedMessages} >= 1`),
      check(
        'accounts_inbound_dedup_seconds_range',
        sql`${t.inboundDedupSeconds} between ${sql.raw(String(INBOUND_DEDUP_RANGE.min))} and ${sql.raw(String(INBOUND_DEDUP_RANGE.max))}`,
      ),
      check(
        'accounts_max_attempts_range',
        sql`${t.maxAttempts} between ${sql.raw(String(MAX_ATTEMPTS_RANGE.min))} and ${sql.raw(String(MAX_ATTEMPTS_RANGE.max))}`,
      ),
      ...ALERT_KINDS.map((kind) => {
        const column = alertThresholds[kind];
        const { min, max } = ALERT_RULES[kind];
        return check(
          `accounts_alert_${kind}_range`,
          sql`${column} is null or ${column} between ${sql.raw(String(min))} and ${sql.raw(String(max))}`,
        );
      }),
    ];
  },
);
