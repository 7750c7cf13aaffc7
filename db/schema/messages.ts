import { sql } from 'drizzle-orm';
import {
  bigserial,
  boolean,
  check,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { type AutomationEntry, MESSAGE_ORIGIN_KINDS } from './automation-record';
import { checkIn } from './check-in';
import { phones } from './fleet';
import { FINAL_MESSAGE_STATUSES, MESSAGE_STATUSES } from './message-states';

export { FINAL_MESSAGE_STATUSES, MESSAGE_STATUSES, type MessageStatus } from './message-states';
export const MESSAGE_DIRECTIONS = ['outbound', 'inbound'] as const;
export const ENCODINGS = ['GSM-7', 'UCS-2'] as const;
/**
 * `sim_check`: the free loopback SMS that proves an app-paired phone's SIM (its code is never shown).
 * `data`: a binary (data) SMS to or from a port, its bytes in base64 as `content`.
 * `mms`: an MMS the SMSGate app reported (its text as `content`, what it said about it in `details`).
 */
export const MESSAGE_KINDS = ['message', 'sim_check', 'data', 'mms'] as const;
export type MessageKind = (typeof MESSAGE_KINDS)[number];
/** Why a due queued message is held: the cap of its phone that is used up until its window opens. */
export const HELD_REASONS = ['hourly_cap', 'daily_cap'] as const;
export type HeldReason = (typeof HELD_REASONS)[number];

/**
 * What the SMSGate app reported about a data SMS or an MMS it received, as it reported it
 * (`sms:data-received`, `mms:received`, `mms:downloaded`); no attachment bytes are kept.
 */
export type MessageDetails = {
  event?: string;
  subject?: string | null;
  size?: number | null;
  content_class?: string | null;
  transaction_id?: string | null;
  attachment_count?: number;
  attachment_types?: string[];
};
/**
 * A history row is a state the message entered; `rerouted`: a message sent through a group
 * (`from_group`) moved from one phone of the group to another (its from_phone and to_phone);
 * `retrying`: an attempt failed in a way a retry may fix, and another is scheduled.
 */
export const HISTORY_STATUSES = [...MESSAGE_STATUSES, 'rerouted', 'retrying'] as const;
/** `high` goes out before `normal` and ignores send windows (never pacing). Ordered so that `high` sorts first. */
export const MESSAGE_PRIORITIES = ['high', 'normal'] as const;
export type MessagePriority = (typeof MESSAGE_PRIORITIES)[number];
export type HistoryStatus = (typeof HISTORY_STATUSES)[number];
/** SIM slots a message may name: dual-SIM phones are the most a gateway phone has. */
export const SIM_SLOTS = [1, 2] as const;

export const bulkMessages = pgTable(
  'bulk_messages',
  {
    id: uuid('id').notNull().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    // The sending phone; null for a bulk sent through a group (`from_group`), spread over its phones.
    phoneId: uuid('phone_id'),
    fromGroup: integer('from_group'),
    content: text('content').notNull(),
    recipientCount: integer('recipient_count').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'bulk_messages_pkey', columns: [t.id, t.accountId] }),
    foreignKey({
      name: 'bulk_messages_phone_id_phones_id_fk',
      columns: [t.accountId, t.phoneId],
      foreignColumns: [phones.accountId, phones.id],
    }).onDelete('cascade'),
    index('bulk_messages_account_idx').on(t.accountId, t.createdAt),
  ],
);

/**
 * Back-pressure (lib/messages/queue-room.ts): an upper bound of the account's queued messages. Every
 * send adds its messages under this row's lock, only while the sum stays within the account's
 * `max_queued_messages`; messages leaving the queue take nothing off, so it only grows, until a send
 * that finds it full recounts the account's queued messages (messages_account_queued_idx) and sets it
 * to that count (at most once every few seconds while the queue stays full).
 */
export const accountQueues = pgTable('account_queues', {
  accountId: uuid('account_id')
    .primaryKey()
    .references(() => accounts.id, { onDelete: 'cascade' }),
  queued: integer('queued').notNull().default(0),
  recountedAt: timestamp('recounted_at', { withTimezone: true, precision: 3 }),
  // The account's limit as the last reservation read it: the upsert's conflict check compares with
  // `excluded.queue_limit`, not a subquery (which Citus cannot run there).
  queueLimit: integer('queue_limit'),
});

export const messages = pgTable(
  'messages',
  {
    id: uuid('id').notNull().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    // The account's phone that sends (outbound) or received (inbound) the message.
    phoneId: uuid('phone_id').notNull(),
    // The group charged for an outbound message: a refund goes back there.
    groupId: integer('group_id'),
    direction: text('direction', { enum: MESSAGE_DIRECTIONS }).notNull(),
    from: text('from').notNull(),
    to: text('to').notNull(),
    content: text('content').notNull(),
    status: text('status', { enum: MESSAGE_STATUSES }).notNull(),
    segments: integer('segments').notNull(),
    encoding: text('encoding', { enum: ENCODINGS }).notNull(),
    requestId: text('request_id'),
    bulkId: uuid('bulk_id'),
    // Inbound idempotency: the phone's own id for a received SMS.
    deviceMessageId: text('device_message_id'),
    sendAt: timestamp('send_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true, precision: 3 }),
    error: text('error'),
    // Why a due queued message waits (HELD_REASONS): its phone's hourly or daily cap is used up.
    // Written by the claim that finds the cap reached, cleared when the message is handed out.
    heldReason: text('held_reason', { enum: HELD_REASONS }),
    kind: text('kind', { enum: MESSAGE_KINDS }).notNull().default('message'),
    // A data SMS: the port it goes to (outbound) or came to (inbound, when the app says).
    dataPort: integer('data_port'),
    // An inbound data SMS or MMS: what the app reported about it (MessageDetails).
    details: jsonb('details').$type<MessageDetails>(),
    // The SIM slot the phone should send from (null: the phone's default).
    sim: smallint('sim'),
    // Set when sent through a group: the message may move to another phone of that group.
    fromGroup: integer('from_group'),
    priority: text('priority', { enum: MESSAGE_PRIORITIES }).notNull().default('normal'),
    // Where this message's state events also go (its status_callback_url), through the webhook worker.
    callbackWebhookId: uuid('callback_webhook_id'),
    // An automatic message: why it was sent (rule, HELP, webhook reply), by which rule, answering which
    // inbound message; `origin_key` names the action, so each is sent at most once per inbound message.
    originKind: text('origin_kind', { enum: MESSAGE_ORIGIN_KINDS }),
    originRuleId: uuid('origin_rule_id'),
    originMessageId: uuid('origin_message_id'),
    originKey: text('origin_key'),
    // An inbound message: what automation did about it (lib/automation).
    automation: jsonb('automation').$type<AutomationEntry[]>(),
    // In the SMSGate app's passphrase format (components/crypto/smsgate-encryption.ts): `content` and the
    // counterpart number are ciphertext that only the app and the passphrase's holders can read.
    encrypted: boolean('encrypted').notNull().default(false),
    // Tries so far (automatic retries count up to the group's or account's max_attempts).
    attempts: smallint('attempts').notNull().default(1),
    // Set when retention removed the content (emptied, or replaced by its SHA-256 in hex) and maybe
    // hashed the counterpart number (lib/retention); the row, its counts and its ledger rows stay.
    contentPurgedAt: timestamp('content_purged_at', { withTimezone: true, precision: 3 }),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'messages_pkey', columns: [t.id, t.accountId] }),
    foreignKey({
      name: 'messages_phone_id_phones_id_fk',
      columns: [t.accountId, t.phoneId],
      foreignColumns: [phones.accountId, phones.id],
    }).onDelete('cascade'),
    // `bulk_id` and `callback_webhook_id` name a bulk and a status-callback target without a foreign key:
    // Citus refuses `ON DELETE SET NULL (col)` on a key that includes the distribution column, so the
    // one path that deletes each nulls them (lib/phones/delete.ts for a phone's bulks,
    // lib/webhooks/detach.ts for webhooks).
    // Idempotency of sends rests on this index, not on a read-then-write.
    uniqueIndex('messages_account_request_id_key').on(t.accountId, t.requestId).where(sql`${t.requestId} is not null`),
    uniqueIndex('messages_phone_device_message_id_key')
      .on(t.phoneId, t.deviceMessageId, t.accountId)
      .where(sql`${t.deviceMessageId} is not null`),
    // Claims: a phone's due queued messages, high priority first ('high' < 'normal'), oldest first.
    index('messages_claim_idx').on(t.phoneId, t.priority, t.sendAt, t.createdAt).where(sql`${t.status} = 'queued'`),
    // Lists: newest first per account. The overview's daily counts read the last 30 days of an account
    // and only kind, direction and status besides: with them in the key that is an index-only scan,
    // not a visit to every row's page (status is in partial indexes' predicates already, so keeping it
    // here costs no HOT update).
    index('messages_account_created_idx').on(t.accountId, t.createdAt, t.id, t.kind, t.direction, t.status),
    // Lists filtered to high priority, which few messages have: along messages_account_created_idx a
    // busy account's page would read every row it has to find none.
    index('messages_account_high_idx').on(t.accountId, t.createdAt, t.id).where(sql`${t.priority} = 'high'`),
    // An automatic action happens once per inbound message, whatever retries or resends happen.
    uniqueIndex('messages_origin_key')
      .on(t.originMessageId, t.originKey, t.accountId)
      .where(sql`${t.originMessageId} is not null`),
    // The retention sweep asks whether a status-callback target still has a live message, and deleting
    // one nulls its messages' callback_webhook_id: both look up this index, not every message of the account.
    index('messages_callback_idx').on(t.accountId, t.callbackWebhookId).where(sql`${t.callbackWebhookId} is not null`),
    index('messages_bulk_idx').on(t.bulkId).where(sql`${t.bulkId} is not null`),
    // Back-pressure recounts an account's queued messages (lib/messages/queue-room.ts): an index-only
    // count bounded by the account's max_queued_messages, rather than a visit to every message it has.
    index('messages_account_queued_idx').on(t.accountId).where(sql`${t.status} = 'queued'`),
    // Expiry sweep over live outbound messages only.
    index('messages_expiry_idx').on(t.expiresAt).where(sql`${t.status} in ('queued', 'dispatched', 'cancelling')`),
    // Pacing counts what a phone was handed recently (lib/messages/pacing.ts `HANDED_OUT`): only messages
    // handed out at least once are in it, so a phone's backlog of never-claimed sends is never walked.
    index('messages_phone_handed_idx')
      .on(t.phoneId, t.updatedAt)
      .where(sql`${t.direction} = 'outbound' and (${t.status} <> 'queued' or ${t.attempts} > 1)`),
    // Search by content (lib/messages/list.ts), GIN indexes with account_id beside the text (through
    // btree_gin), so that one scan intersects the account's entry with the text's and a quiet account
    // never checks the matches of the others. By words: 'simple', lower case, no stemming and no stop
    // words, the same for every language; the whole table, since the planner reads its words' statistics
    // only from an index without a predicate. By substring: pg_trgm's trigrams of live content only, so
    // that the retention sweep's rewrite of a text (some sixty trigrams of a hash) adds nothing to it.
    index('messages_content_fts_idx').using('gin', t.accountId, sql`to_tsvector('simple', ${t.content})`),
    index('messages_content_substring_idx')
      .using('gin', t.accountId, t.content.op('gin_trgm_ops'))
      .where(sql`${t.contentPurgedAt} is null`),
    // Sticky group sends (which phone last wrote to this recipient), and search by the start of the
    // counterpart number: text_pattern_ops, because under a collation other than C a plain btree cannot
    // serve `like '+4477%'`, and a busy account's rare prefix would read every row the account has.
    index('messages_account_to_idx')
      .on(t.accountId, t.to.op('text_pattern_ops'), t.createdAt)
      .where(sql`${t.direction} = 'outbound'`),
    // The same search over inbound messages, by the sender's number.
    index('messages_account_from_idx')
      .on(t.accountId, t.from.op('text_pattern_ops'), t.createdAt)
      .where(sql`${t.direction} = 'inbound'`),
    // The retention sweep: an account's final messages whose content is still there, oldest first.
    index('messages_retention_idx')
      .on(t.accountId, t.createdAt)
      .where(
        sql`${t.contentPurgedAt} is null and ${t.status} in (${sql.raw([...FINAL_MESSAGE_STATUSES].map((s) => `'${s}'`).join(', '))})`,
      ),
    check('messages_sim_check', sql`${t.sim} is null or ${t.sim} in (${sql.raw(SIM_SLOTS.join(', '))})`),
    checkIn('messages_direction_check', t.direction, MESSAGE_DIRECTIONS),
    checkIn('messages_status_check', t.status, MESSAGE_STATUSES),
    checkIn('messages_encoding_check', t.encoding, ENCODINGS),
    checkIn('messages_kind_check', t.kind, MESSAGE_KINDS),
    checkIn('messages_priority_check', t.priority, MESSAGE_PRIORITIES),
    checkIn('messages_held_reason_check', t.heldReason, HELD_REASONS),
    checkIn('messages_origin_kind_check', t.originKind, MESSAGE_ORIGIN_KINDS),
  ],
);

/** Every state a message has been in, with its time. */
export const messageStatusHistory = pgTable(
  'message_status_history',
  {
    id: bigserial('id', { mode: 'number' }).notNull(),
    // The message's account, so that the history lives on the message's shard.
    accountId: uuid('account_id').notNull(),
    messageId: uuid('message_id').notNull(),
    status: text('status', { enum: HISTORY_STATUSES }).notNull(),
    error: text('error'),
    // For `rerouted`: the numbers of the phone it left and the phone it moved to.
    fromPhone: text('from_phone'),
    toPhone: text('to_phone'),
    at: timestamp('at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'message_status_history_pkey', columns: [t.id, t.accountId] }),
    foreignKey({
      name: 'message_status_history_message_id_messages_id_fk',
      columns: [t.accountId, t.messageId],
      foreignColumns: [messages.accountId, messages.id],
    }).onDelete('cascade'),
    index('message_status_history_message_idx').on(t.messageId, t.id),
    checkIn('message_status_history_status_check', t.status, HISTORY_STATUSES),
  ],
);
