import { sql } from 'drizzle-orm';
import { index, integer, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { checkIn } from './check-in';

export const DEVICE_STATUSES = ['pending_verification', 'verified', 'activated', 'revoked'] as const;
export type DeviceStatus = (typeof DEVICE_STATUSES)[number];

/** `simulator`: activated through /api/v1 (the device simulator); `app`: the SMSGate app, paired by code. */
export const DEVICE_KINDS = ['simulator', 'app'] as const;
export type DeviceKind = (typeof DEVICE_KINDS)[number];

/** A SIM the SMSGate app reports: its number arrives redacted to the last 4 digits (`****1234`). */
export type SimCard = {
  slot: number;
  phone_number: string | null;
  carrier: string | null;
};

/** An Android phone going through activation: register -> verify SIM -> bind email. */
export const devices = pgTable(
  'devices',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    phoneNumber: text('phone_number').notNull(),
    countryCode: text('country_code'),
    label: text('label'),
    status: text('status', { enum: DEVICE_STATUSES }).notNull().default('pending_verification'),
    accountId: uuid('account_id').references(() => accounts.id, { onDelete: 'cascade' }),
    // Email the device asked to bind; becomes the account's email on confirmation.
    pendingEmail: text('pending_email'),
    keyHash: text('key_hash'),
    keyPrefix: text('key_prefix'),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    verifiedAt: timestamp('verified_at', { withTimezone: true, precision: 3 }),
    activatedAt: timestamp('activated_at', { withTimezone: true, precision: 3 }),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, precision: 3 }),
    kind: text('kind', { enum: DEVICE_KINDS }).notNull().default('simulator'),
    // What the SMSGate app told at registration: its name, FCM token (unused here) and SIMs.
    name: text('name'),
    pushToken: text('push_token'),
    simCards: jsonb('sim_cards').$type<SimCard[]>(),
    // The app's `webhooks.signing_key`: its callbacks are signed with it. Sealed with APP_SECRET.
    signingKeyEncrypted: text('signing_key_encrypted'),
  },
  (t) => [
    // Every device-key request looks the key up by its SHA-256 hash.
    uniqueIndex('devices_key_hash_key').on(t.keyHash).where(sql`${t.keyHash} is not null`),
    index('devices_phone_number_idx').on(t.phoneNumber),
    index('devices_account_idx').on(t.accountId),
    checkIn('devices_status_check', t.status, DEVICE_STATUSES),
    checkIn('devices_kind_check', t.kind, DEVICE_KINDS),
  ],
);

export const CODE_PURPOSES = ['verify_sim', 'bind_email', 'sign_in'] as const;
export type CodePurpose = (typeof CODE_PURPOSES)[number];

/** One-time 6-digit codes (SIM verification, email binding, browser sign-in), hashed at rest. */
export const verificationCodes = pgTable(
  'verification_codes',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    purpose: text('purpose', { enum: CODE_PURPOSES }).notNull(),
    deviceId: uuid('device_id').references(() => devices.id, { onDelete: 'cascade' }),
    email: text('email'),
    codeHash: text('code_hash').notNull(),
    failedAttempts: integer('failed_attempts').notNull().default(0),
    expiresAt: timestamp('expires_at', { withTimezone: true, precision: 3 }).notNull(),
    consumedAt: timestamp('consumed_at', { withTimezone: true, precision: 3 }),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    // The live code of a device or email is the newest row for it.
    index('verification_codes_device_idx').on(t.deviceId, t.purpose, t.createdAt),
    index('verification_codes_email_idx').on(t.email, t.purpose, t.createdAt),
    // The retention sweep deletes expired codes (lib/retention).
    index('verification_codes_expires_idx').on(t.expiresAt),
    checkIn('verification_codes_purpose_check', t.purpose, CODE_PURPOSES),
  ],
);

/**
 * The SMSGate app's webhook call ids seen from each device, kept for twice the signature window:
 * a signed call replayed within its window (or a retry whose answer was lost) is answered 2xx and
 * changes nothing. Exactly-once rests on the primary key, across instances. Each call prunes its
 * device's ids older than that.
 */
export const appCallbackIds = pgTable(
  'app_callback_ids',
  {
    deviceId: uuid('device_id')
      .notNull()
      .references(() => devices.id, { onDelete: 'cascade' }),
    callbackId: text('callback_id').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [primaryKey({ columns: [t.deviceId, t.callbackId] })],
);
