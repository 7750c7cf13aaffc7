import { sql } from 'drizzle-orm';
import {
  bigserial,
  boolean,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uuid,
} from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { messages } from './messages';

/**
 * A rule's actions as stored: the shapes lib/automation/schemas.ts validates. Kept as JSON because
 * they are read and written as one list with the rule, never queried one by one.
 */
export type StoredRuleAction =
  | { type: 'reply'; content: string }
  | { type: 'forward_sms'; to: string }
  | { type: 'forward_email'; to: string }
  | { type: 'webhook'; webhook_id: string };

/**
 * An account's inbound rule: when an inbound SMS matches (keyword or pattern, sender prefix, the
 * receiving phone's scope), its actions run, in `position` order over the account's rules.
 */
export const inboundRules = pgTable(
  'inbound_rules',
  {
    id: uuid('id').notNull().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    enabled: boolean('enabled').notNull().default(true),
    // 1-based order among the account's rules; rewritten as a whole on every reorder.
    position: integer('position').notNull(),
    // At most one of keyword and pattern; neither (and no prefix) matches every inbound message.
    keyword: text('keyword'),
    pattern: text('pattern'),
    fromPrefix: text('from_prefix'),
    // Empty both: every phone of the account.
    scopePhoneIds: uuid('scope_phone_ids').array().notNull().default(sql`'{}'::uuid[]`),
    scopeGroupIds: integer('scope_group_ids').array().notNull().default(sql`'{}'::integer[]`),
    actions: jsonb('actions').$type<StoredRuleAction[]>().notNull(),
    // Let later rules act on the message too.
    continueMatching: boolean('continue').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'inbound_rules_pkey', columns: [t.id, t.accountId] }),
    index('inbound_rules_account_position_idx').on(t.accountId, t.position),
  ],
);

/**
 * Every automatic SMS (rule action, HELP, webhook reply), by the counterpart number whose inbound
 * message caused it: the loop and abuse guard counts these over the last hour, per number and per
 * account (lib/messages/gate.ts), under advisory locks per account and per number.
 */
export const automaticSends = pgTable(
  'automatic_sends',
  {
    id: bigserial('id', { mode: 'number' }).notNull(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    counterpart: text('counterpart').notNull(),
    messageId: uuid('message_id').notNull(),
    at: timestamp('at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'automatic_sends_pkey', columns: [t.id, t.accountId] }),
    foreignKey({
      name: 'automatic_sends_message_id_messages_id_fk',
      columns: [t.accountId, t.messageId],
      foreignColumns: [messages.accountId, messages.id],
    }).onDelete('cascade'),
    index('automatic_sends_counterpart_idx').on(t.accountId, t.counterpart, t.at),
    // The account's count over the last hour (AUTO_SMS_ACCOUNT_HOURLY_LIMIT).
    index('automatic_sends_account_at_idx').on(t.accountId, t.at),
  ],
);

/**
 * An inbound message whose rules have not run yet. Written in the transaction that records the
 * message, deleted in the one that runs its automation (lib/automation/pending.ts), which claims it
 * with SKIP LOCKED: automation runs after the message is committed, never inside its transaction,
 * and a crash between the two leaves the row for the recovery sweep to run later.
 */
export const pendingAutomation = pgTable(
  'pending_automation',
  {
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    messageId: uuid('message_id').notNull(),
    // The message's `message.received` event, which a rule's webhook action delivers.
    eventId: uuid('event_id'),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'pending_automation_pkey', columns: [t.messageId, t.accountId] }),
    foreignKey({
      name: 'pending_automation_message_id_messages_id_fk',
      columns: [t.accountId, t.messageId],
      foreignColumns: [messages.accountId, messages.id],
    }).onDelete('cascade'),
    // The recovery sweep's oldest first.
    index('pending_automation_created_at_idx').on(t.createdAt),
  ],
);
