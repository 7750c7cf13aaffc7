import { sql } from 'drizzle-orm';
import {
  bigserial,
  boolean,
  check,
  index,
  integer,
  pgTable,
  serial,
  smallint,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { devices } from './devices';

/** Groups share a credit balance. Ids are integers because the interface's `to_group` is. */
export const phoneGroups = pgTable(
  'phone_groups',
  {
    id: serial('id').primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    // lower(trim(name)): uniqueness is case-insensitive after trimming.
    nameKey: text('name_key').notNull(),
    isDefault: boolean('is_default').notNull().default(false),
    // Cached sum of the group's ledger rows; the CHECK is the last line against overdraft.
    balance: integer('balance').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('phone_groups_account_name_key').on(t.accountId, t.nameKey),
    // Exactly one default group per account.
    uniqueIndex('phone_groups_one_default_key').on(t.accountId).where(sql`${t.isDefault}`),
    check('phone_groups_balance_non_negative', sql`${t.balance} >= 0`),
  ],
);

export const PHONE_STATUSES = ['online', 'offline', 'unknown'] as const;
export type PhoneStatus = (typeof PHONE_STATUSES)[number];

export const phones = pgTable(
  'phones',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    groupId: integer('group_id')
      .notNull()
      .references(() => phoneGroups.id),
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
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('phones_account_phone_key').on(t.accountId, t.phone),
    index('phones_account_created_idx').on(t.accountId, t.createdAt),
    index('phones_group_idx').on(t.groupId),
    // The offline sweep looks only at phones that claim to be online.
    index('phones_online_heartbeat_idx').on(t.lastHeartbeatAt).where(sql`${t.status} = 'online'`),
    check('phones_battery_range', sql`${t.battery} is null or ${t.battery} between 0 and 100`),
  ],
);

export const heartbeats = pgTable(
  'heartbeats',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    phoneId: uuid('phone_id')
      .notNull()
      .references(() => phones.id, { onDelete: 'cascade' }),
    status: text('status').notNull(),
    battery: smallint('battery'),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [index('heartbeats_phone_created_idx').on(t.phoneId, t.createdAt)],
);
