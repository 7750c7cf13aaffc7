import { sql } from 'drizzle-orm';
import {
  bigserial,
  boolean,
  check,
  date,
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  serial,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { accounts, type SendWindow } from './accounts';

/** What a group overrides of its account's sending settings: a key present wins, absent inherits. */
export type SendingOverrides = {
  send_window?: SendWindow | null;
  max_attempts?: number;
  allowed_countries?: string[] | null;
};

import { checkIn } from './check-in';
import { devices } from './devices';

/** Groups share a credit balance. Ids are integers because the interface's `to_group` is. */
export const phoneGroups = pgTable(
  'phone_groups',
  {
    id: serial('id').notNull(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    // lower(trim(name)): uniqueness is case-insensitive after trimming.
    nameKey: text('name_key').notNull(),
    isDefault: boolean('is_default').notNull().default(false),
    // Cached sum of the group's ledger rows; the CHECK is the last line against overdraft.
    balance: integer('balance').notNull().default(0),
    sendingOverrides: jsonb('sending_overrides').$type<SendingOverrides>().notNull().default({}),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'phone_groups_pkey', columns: [t.id, t.accountId] }),
    uniqueIndex('phone_groups_account_name_key').on(t.accountId, t.nameKey),
    // Exactly one default group per account.
    uniqueIndex('phone_groups_one_default_key').on(t.accountId).where(sql`${t.isDefault}`),
    check('phone_groups_balance_non_negative', sql`${t.balance} >= 0`),
  ],
);

export const PHONE_STATUSES = ['online', 'offline', 'unknown'] as const;
export type PhoneStatus = (typeof PHONE_STATUSES)[number];

/**
 * Proof that the phone's device holds the SIM of its number: `verified` by a texted code (the
 * activation flow) or by the SMSGate app's loopback SMS; `pending` while an app waits for its
 * loopback (sends are refused until then); `unverified` for a number added by hand.
 */
export const SIM_VERIFICATIONS = ['unverified', 'pending', 'verified'] as const;
export type SimVerification = (typeof SIM_VERIFICATIONS)[number];

export const phones = pgTable(
  'phones',
  {
    id: uuid('id').notNull().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    groupId: integer('group_id').notNull(),
    phone: text('phone').notNull(),
    label: text('label'),
    // The activated device that sends for this number, if any.
    deviceId: uuid('device_id').references(() => devices.id, { onDelete: 'set null' }),
    status: text('status', { enum: PHONE_STATUSES }).notNull().default('unknown'),
    battery: smallint('battery'),
    lastHeartbeatAt: timestamp('last_heartbeat_at', { withTimezone: true, precision: 3 }),
    // Pacing: carriers block phones that send too fast.
    messagesPerMinute: integer('messages_per_minute').notNull().default(10),
    dailyCap: integer('daily_cap'),
    // Carrier quotas (lib/messages/quota.ts): messages an hour, distinct recipients a calendar month
    // (UTC), and a random delay of up to jitter_seconds between two of the phone's messages.
    hourlyCap: integer('hourly_cap'),
    monthlyRecipientCap: integer('monthly_recipient_cap'),
    jitterSeconds: integer('jitter_seconds').notNull().default(0),
    // Paused after the phone reported Android's RESULT_ERROR_LIMIT_EXCEEDED (lib/phones/pause.ts): no
    // message is handed to it or assigned to it before this. `pause_seconds` is the length of the latest
    // pause (a repeat within the hour doubles it); `pause_resumed_at` is set once phone.resumed is emitted.
    pausedUntil: timestamp('paused_until', { withTimezone: true, precision: 3 }),
    pauseSeconds: integer('pause_seconds'),
    pauseResumedAt: timestamp('pause_resumed_at', { withTimezone: true, precision: 3 }),
    simVerification: text('sim_verification', { enum: SIM_VERIFICATIONS }).notNull().default('unverified'),
    // The number the pending SIM check's code is texted from: null for the phone's own (loopback),
    // else another verified phone of the account or the operator's VERIFICATION_SENDER_PHONE.
    simCheckSender: text('sim_check_sender'),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'phones_pkey', columns: [t.id, t.accountId] }),
    foreignKey({
      name: 'phones_group_id_phone_groups_id_fk',
      columns: [t.accountId, t.groupId],
      foreignColumns: [phoneGroups.accountId, phoneGroups.id],
    }),
    uniqueIndex('phones_account_phone_key').on(t.accountId, t.phone),
    index('phones_account_created_idx').on(t.accountId, t.createdAt),
    index('phones_group_idx').on(t.groupId),
    // The resume sweep: pauses not yet announced as over. Heartbeats write none of these columns.
    index('phones_pause_idx')
      .on(t.pausedUntil)
      .where(sql`${t.pausedUntil} is not null and ${t.pauseResumedAt} is null`),
    // No index covers what a steady heartbeat writes (status unchanged, battery, last_heartbeat_at),
    // so PostgreSQL updates the row in place (HOT, with the fillfactor of migration 0015) and
    // touches none of these indexes. The offline sweep reads the table instead (lib/heartbeats/sweep.ts).
    check('phones_battery_range', sql`${t.battery} is null or ${t.battery} between 0 and 100`),
    checkIn('phones_status_check', t.status, PHONE_STATUSES),
    checkIn('phones_sim_verification_check', t.simVerification, SIM_VERIFICATIONS),
  ],
);

/**
 * The distinct recipients each phone's SIM texted in a calendar month (UTC; `month` is its first
 * day), written by the outbound row writer's statements (lib/messages/quota.ts): a recipient already
 * here never counts again that month. `sim` is the slot a message counts for (`quotaSimSql`: 1 on
 * a phone that reports fewer than two SIMs). Read by the monthly recipient cap and the group's
 * choice of phone (the SIM that already texts a number keeps it).
 */
export const simRecipients = pgTable(
  'sim_recipients',
  {
    accountId: uuid('account_id').notNull(),
    phoneId: uuid('phone_id').notNull(),
    sim: smallint('sim').notNull(),
    month: date('month', { mode: 'string' }).notNull(),
    recipient: text('recipient').notNull(),
  },
  (t) => [
    primaryKey({ name: 'sim_recipients_pkey', columns: [t.accountId, t.phoneId, t.sim, t.month, t.recipient] }),
    // The retention sweep deletes the months before the previous one (lib/retention).
    index('sim_recipients_month_idx').on(t.month),
    foreignKey({
      name: 'sim_recipients_phone_fk',
      columns: [t.phoneId, t.accountId],
      foreignColumns: [phones.id, phones.accountId],
    }).onDelete('cascade'),
  ],
);

/**
 * How many rows `sim_recipients` holds per phone, SIM slot and month: the counter the monthly cap
 * is guarded on (an upsert that refuses to pass the cap), so two sends racing for a SIM's last
 * recipient never both pass it.
 */
export const simRecipientCounts = pgTable(
  'sim_recipient_counts',
  {
    accountId: uuid('account_id').notNull(),
    phoneId: uuid('phone_id').notNull(),
    sim: smallint('sim').notNull(),
    month: date('month', { mode: 'string' }).notNull(),
    recipients: integer('recipients').notNull(),
  },
  (t) => [
    primaryKey({ name: 'sim_recipient_counts_pkey', columns: [t.accountId, t.phoneId, t.sim, t.month] }),
    index('sim_recipient_counts_month_idx').on(t.month),
    foreignKey({
      name: 'sim_recipient_counts_phone_fk',
      columns: [t.phoneId, t.accountId],
      foreignColumns: [phones.id, phones.accountId],
    }).onDelete('cascade'),
  ],
);

/**
 * The monthly recipients per phone as the release before migration 0038 counted them (no SIM slot).
 * Unread since 0039_quotas_per_sim_copy, which copied them into `sim_recipients`: kept for one release so
 * that instances of the previous release go on sending during a rolling upgrade.
 */
export const phoneRecipients = pgTable(
  'phone_recipients',
  {
    accountId: uuid('account_id').notNull(),
    phoneId: uuid('phone_id').notNull(),
    month: date('month', { mode: 'string' }).notNull(),
    recipient: text('recipient').notNull(),
  },
  (t) => [
    primaryKey({ name: 'phone_recipients_pkey', columns: [t.accountId, t.phoneId, t.month, t.recipient] }),
    foreignKey({
      name: 'phone_recipients_phone_fk',
      columns: [t.phoneId, t.accountId],
      foreignColumns: [phones.id, phones.accountId],
    }).onDelete('cascade'),
  ],
);

/** The counters of `phone_recipients`: unread since 0039_quotas_per_sim_copy, like that table. */
export const phoneRecipientCounts = pgTable(
  'phone_recipient_counts',
  {
    accountId: uuid('account_id').notNull(),
    phoneId: uuid('phone_id').notNull(),
    month: date('month', { mode: 'string' }).notNull(),
    recipients: integer('recipients').notNull(),
  },
  (t) => [
    primaryKey({ name: 'phone_recipient_counts_pkey', columns: [t.accountId, t.phoneId, t.month] }),
    foreignKey({
      name: 'phone_recipient_counts_phone_fk',
      columns: [t.phoneId, t.accountId],
      foreignColumns: [phones.id, phones.accountId],
    }).onDelete('cascade'),
  ],
);

/**
 * Codes that pair the SMSGate app with a phone of the account ("Sign in by code"): 8 digits,
 * single use, 10 minutes, stored as an HMAC under APP_SECRET so that the code itself finds its row.
 */
export const pairingCodes = pgTable(
  'pairing_codes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    // Not a foreign key: a global table cannot reference an account table once they are sharded
    // (db/tenancy.ts). Removing a phone deletes its codes (lib/phones/delete.ts), and redeeming
    // one finds its phone by account and id or refuses it.
    phoneId: uuid('phone_id').notNull(),
    codeHash: text('code_hash').notNull(),
    expiresAt: timestamp('expires_at', { withTimezone: true, precision: 3 }).notNull(),
    // Set when the app redeems the code, or when a newer code for the phone voids it.
    consumedAt: timestamp('consumed_at', { withTimezone: true, precision: 3 }),
    deviceId: uuid('device_id').references(() => devices.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    // Redeeming looks a live code up by its hash; two live codes never share one.
    uniqueIndex('pairing_codes_live_hash_key').on(t.codeHash).where(sql`${t.consumedAt} is null`),
    index('pairing_codes_phone_idx').on(t.phoneId),
    // The retention sweep deletes expired codes (lib/retention).
    index('pairing_codes_expires_idx').on(t.expiresAt),
  ],
);

/** What a phone reports in a heartbeat; `unknown` is only ever the state of a phone never heard from. */
export const HEARTBEAT_STATUSES = ['online', 'offline'] as const;
export type HeartbeatStatus = (typeof HEARTBEAT_STATUSES)[number];

export const heartbeats = pgTable(
  'heartbeats',
  {
    id: bigserial('id', { mode: 'number' }).notNull(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    phoneId: uuid('phone_id').notNull(),
    status: text('status', { enum: HEARTBEAT_STATUSES }).notNull(),
    battery: smallint('battery'),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'heartbeats_pkey', columns: [t.id, t.accountId] }),
    foreignKey({
      name: 'heartbeats_phone_id_phones_id_fk',
      columns: [t.accountId, t.phoneId],
      foreignColumns: [phones.accountId, phones.id],
    }).onDelete('cascade'),
    index('heartbeats_phone_created_idx').on(t.phoneId, t.createdAt),
    // The retention sweep deletes the oldest (lib/retention).
    index('heartbeats_created_idx').on(t.createdAt),
    checkIn('heartbeats_status_check', t.status, HEARTBEAT_STATUSES),
  ],
);
