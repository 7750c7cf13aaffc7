import { sql } from 'drizzle-orm';
import {
  foreignKey,
  index,
  integer,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { checkIn } from './check-in';
import { messages } from './messages';

/**
 * An address an account may forward inbound SMS to (besides its own sign-in email, which is
 * always allowed): usable once its owner opened the confirmation link emailed to it.
 */
export const emailAddresses = pgTable(
  'email_addresses',
  {
    id: uuid('id').notNull().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    // Lower-cased: one row per address and account whatever the case it was typed in.
    email: text('email').notNull(),
    confirmedAt: timestamp('confirmed_at', { withTimezone: true, precision: 3 }),
    // SHA-256 of the confirmation link's token, kept after use so that opening the link again
    // answers "confirmed" instead of an error.
    tokenHash: text('token_hash').notNull(),
    tokenExpiresAt: timestamp('token_expires_at', { withTimezone: true, precision: 3 }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'email_addresses_pkey', columns: [t.id, t.accountId] }),
    uniqueIndex('email_addresses_account_email_key').on(t.accountId, t.email),
    // The confirmation link finds its row by the token's hash alone, the leading column.
    uniqueIndex('email_addresses_token_hash_key').on(t.tokenHash, t.accountId),
    // Email to SMS from a confirmed sender (SMTP_ALLOW_CONFIRMED_SENDERS) finds the accounts of an address.
    index('email_addresses_confirmed_email_idx').on(t.email, t.accountId).where(sql`${t.confirmedAt} is not null`),
  ],
);

/**
 * Who sent each SMS that came from a mail (Email to SMS): the mail's envelope sender (MAIL FROM), or
 * its From header under the null sender. An inbound SMS whose number's latest outbound message is one
 * of these, within EMAIL_REPLY_WINDOW_DAYS, may be forwarded to that address (lib/email-to-sms/replies.ts).
 * Rows past the window are of no use: the retention sweep removes them (lib/retention/sweep.ts).
 */
export const emailSmsSenders = pgTable(
  'email_sms_senders',
  {
    accountId: uuid('account_id').notNull(),
    messageId: uuid('message_id').notNull(),
    // Lower-cased.
    sender: text('sender').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'email_sms_senders_pkey', columns: [t.accountId, t.messageId] }),
    foreignKey({
      name: 'email_sms_senders_message_fk',
      columns: [t.accountId, t.messageId],
      foreignColumns: [messages.accountId, messages.id],
    }).onDelete('cascade'),
    // The retention sweep takes the oldest rows of every account.
    index('email_sms_senders_created_idx').on(t.createdAt),
  ],
);

export const OUTBOX_EMAIL_STATUSES = ['pending', 'sent', 'failed'] as const;
export type OutboxEmailStatus = (typeof OUTBOX_EMAIL_STATUSES)[number];

/**
 * Emails waiting to go out: automation forwards (forward_email actions, with their inbound message)
 * and account alerts (lib/alerts, without one): written in the inbound message's
 * transaction, sent after the commit by the background work (lib/email/outbox.ts), never while a
 * transaction or a pool connection is held. The forwards of the last hour are also what
 * AUTO_EMAIL_ACCOUNT_HOURLY_LIMIT and AUTO_REPLY_LIMIT count.
 */
export const emailOutbox = pgTable(
  'email_outbox',
  {
    id: uuid('id').notNull().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    // The inbound message a forward carries; null for an alert email.
    inboundMessageId: uuid('inbound_message_id'),
    // The number whose inbound message caused a forward (AUTO_REPLY_LIMIT counts per number).
    counterpart: text('counterpart'),
    to: text('to').notNull(),
    subject: text('subject').notNull(),
    text: text('text').notNull(),
    status: text('status', { enum: OUTBOX_EMAIL_STATUSES }).notNull().default('pending'),
    attemptCount: integer('attempt_count').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    // A worker holds an email until this time; a crashed worker's claim simply runs out.
    lockedUntil: timestamp('locked_until', { withTimezone: true, precision: 3 }),
    lastError: text('last_error'),
    sentAt: timestamp('sent_at', { withTimezone: true, precision: 3 }),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'email_outbox_pkey', columns: [t.id, t.accountId] }),
    foreignKey({
      name: 'email_outbox_inbound_message_id_messages_id_fk',
      columns: [t.accountId, t.inboundMessageId],
      foreignColumns: [messages.accountId, messages.id],
    }).onDelete('cascade'),
    checkIn('email_outbox_status_check', t.status, OUTBOX_EMAIL_STATUSES),
    // Workers claim due pending rows.
    index('email_outbox_due_idx').on(t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    // The hourly limits: per account, and per account and number.
    index('email_outbox_account_created_idx').on(t.accountId, t.createdAt),
    index('email_outbox_counterpart_idx').on(t.accountId, t.counterpart, t.createdAt),
  ],
);
