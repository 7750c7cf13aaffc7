import {
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
import { checkIn } from './check-in';

/**
 * SMPP logins (`system_id` and password) of an account. A bind names only its system_id, so the
 * table is a directory like api_keys: found before the account is known. The password is stored
 * as a salted scrypt hash (SMPP passwords are 8 characters at most, too short for a bare hash);
 * failed_attempts and locked_until hold the brute-force lockout across instances.
 */
export const smppCredentials = pgTable(
  'smpp_credentials',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    systemId: text('system_id').notNull(),
    passwordHash: text('password_hash').notNull(),
    failedAttempts: integer('failed_attempts').notNull().default(0),
    lockedUntil: timestamp('locked_until', { withTimezone: true, precision: 3 }),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    lastBoundAt: timestamp('last_bound_at', { withTimezone: true, precision: 3 }),
  },
  (t) => [
    // Every bind finds its login by system_id.
    uniqueIndex('smpp_credentials_system_id_key').on(t.systemId),
    index('smpp_credentials_account_idx').on(t.accountId, t.createdAt),
  ],
);

export const SMPP_BIND_KINDS = ['transmitter', 'receiver', 'transceiver'] as const;
export type SmppBindKind = (typeof SMPP_BIND_KINDS)[number];

/**
 * The binds open on every instance, so that the plan's bind limit holds across instances behind a
 * TCP balancer. Each instance refreshes seen_at of its own binds; a row not seen for a while
 * belongs to an instance that died and no longer counts.
 */
export const smppBinds = pgTable(
  'smpp_binds',
  {
    id: uuid('id').notNull().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    credentialId: uuid('credential_id').notNull(),
    kind: text('kind', { enum: SMPP_BIND_KINDS }).notNull(),
    boundAt: timestamp('bound_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    seenAt: timestamp('seen_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'smpp_binds_pkey', columns: [t.id, t.accountId] }),
    // A bind counts the account's live binds.
    index('smpp_binds_account_idx').on(t.accountId, t.seenAt),
    checkIn('smpp_binds_kind_check', t.kind, SMPP_BIND_KINDS),
  ],
);

/**
 * Messages submitted over SMPP that asked for receipts (registered_delivery), and by which login:
 * a state event of the message queues a receipt for that login's receiver binds.
 */
export const smppSubmits = pgTable(
  'smpp_submits',
  {
    messageId: uuid('message_id').notNull(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    systemId: text('system_id').notNull(),
    registeredDelivery: smallint('registered_delivery').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'smpp_submits_pkey', columns: [t.messageId, t.accountId] }),
    // The retention sweep can drop old rows by age.
    index('smpp_submits_created_idx').on(t.createdAt),
  ],
);

export const SMPP_DELIVERY_KINDS = ['receipt', 'mo'] as const;
export type SmppDeliveryKind = (typeof SMPP_DELIVERY_KINDS)[number];

/** What a queued deliver_sm carries, before the adapter encodes it. */
export type SmppDeliveryPayload = {
  messageId: string;
  /** The message's `from` and `to` (E.164). */
  from: string;
  to: string;
  content: string;
  /** Receipts: the message's state and when it was accepted and reached it. */
  status?: string;
  error?: string | null;
  submittedAt?: string;
  doneAt?: string;
};

/**
 * deliver_sm waiting for a receiver bind to acknowledge it (deliver_sm_resp): receipts of SMPP
 * submits and inbound SMS. Queued in the transaction of the event they report; deleted when
 * acknowledged or past expires_at. system_id: receipts go to the login that submitted; null, any
 * receiver bind of the account.
 */
export const smppDeliveries = pgTable(
  'smpp_deliveries',
  {
    id: uuid('id').notNull().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: SMPP_DELIVERY_KINDS }).notNull(),
    systemId: text('system_id'),
    payload: jsonb('payload').$type<SmppDeliveryPayload>().notNull(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    // An instance holds a delivery until this time; one that died simply lets it run out.
    lockedUntil: timestamp('locked_until', { withTimezone: true, precision: 3 }),
    expiresAt: timestamp('expires_at', { withTimezone: true, precision: 3 }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'smpp_deliveries_pkey', columns: [t.id, t.accountId] }),
    // Instances claim the due rows of the accounts bound to them, oldest first.
    index('smpp_deliveries_account_due_idx').on(t.accountId, t.nextAttemptAt),
    // Expired rows are deleted by age.
    index('smpp_deliveries_expires_idx').on(t.expiresAt),
    checkIn('smpp_deliveries_kind_check', t.kind, SMPP_DELIVERY_KINDS),
  ],
);
