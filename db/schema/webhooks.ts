import { sql } from 'drizzle-orm';
import {
  bigserial,
  boolean,
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
import { checkAllIn, checkIn } from './check-in';
import { EVENT_TYPES, events } from './events';

/**
 * `endpoint`: a webhook the account manages (/api/v1/webhooks). `callback`: the delivery target of
 * messages sent with a `status_callback_url`, one per URL, signed with the account's callback secret.
 * `smsgate`: registered through SMSGate's integrator API (/api/3rdparty/v1/webhooks), delivered in
 * SMSGate's body with its X-Signature, under the account's SMSGate signing key. `twilio`: an account's
 * webhook in Twilio's format (form-encoded, X-Twilio-Signature under the account's Auth Token), whose
 * answer to an inbound message may be TwiML. `twilio_callback`: the StatusCallback of a message sent
 * through the Twilio-compatible API, one per URL, in Twilio's status-callback format.
 */
export const WEBHOOK_KINDS = ['endpoint', 'callback', 'smsgate', 'twilio', 'twilio_callback'] as const;

export const webhooks = pgTable(
  'webhooks',
  {
    id: uuid('id').notNull().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    url: text('url').notNull(),
    kind: text('kind', { enum: WEBHOOK_KINDS }).notNull().default('endpoint'),
    description: text('description'),
    // SMSGate webhooks: the integrator's own id, its event name, and the device (phone id) it filters on.
    extId: text('ext_id'),
    extEvent: text('ext_event'),
    extDeviceId: text('ext_device_id'),
    events: text('events', { enum: EVENT_TYPES }).array().notNull(),
    phoneFilters: text('phone_filters').array().notNull().default(sql`'{}'::text[]`),
    enabled: boolean('enabled').notNull().default(true),
    // A `message.received` receiver may answer `{ "reply": { "content": … } }`: sent from the receiving phone.
    acceptReplies: boolean('accept_replies').notNull().default(false),
    // whsec_… secrets, encrypted with a key derived from APP_SECRET.
    secretEncrypted: text('secret_encrypted').notNull(),
    // After a rotation the previous secret keeps signing alongside until this time.
    previousSecretEncrypted: text('previous_secret_encrypted'),
    previousSecretExpiresAt: timestamp('previous_secret_expires_at', { withTimezone: true, precision: 3 }),
    failingSince: timestamp('failing_since', { withTimezone: true, precision: 3 }),
    disabledReason: text('disabled_reason'),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'webhooks_pkey', columns: [t.id, t.accountId] }),
    index('webhooks_account_idx').on(t.accountId, t.createdAt),
    // One callback target per URL and account: sends with the same status_callback_url share it.
    uniqueIndex('webhooks_callback_url_key').on(t.accountId, t.url).where(sql`${t.kind} = 'callback'`),
    uniqueIndex('webhooks_twilio_callback_url_key').on(t.accountId, t.url).where(sql`${t.kind} = 'twilio_callback'`),
    // A POST with an id that exists replaces that webhook (SMSGate's semantics).
    uniqueIndex('webhooks_smsgate_ext_id_key').on(t.accountId, t.extId).where(sql`${t.kind} = 'smsgate'`),
    checkIn('webhooks_kind_check', t.kind, WEBHOOK_KINDS),
    checkAllIn('webhooks_events_check', t.events, EVENT_TYPES),
  ],
);

export const DELIVERY_STATUSES = ['pending', 'succeeded', 'failed'] as const;

/** The durable delivery log: one row per (event, webhook). */
export const webhookDeliveries = pgTable(
  'webhook_deliveries',
  {
    id: uuid('id').notNull().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    webhookId: uuid('webhook_id').notNull(),
    eventId: uuid('event_id').notNull(),
    eventType: text('event_type', { enum: EVENT_TYPES }).notNull(),
    status: text('status', { enum: DELIVERY_STATUSES }).notNull().default('pending'),
    attemptCount: integer('attempt_count').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    // A worker holds a delivery until this time; a crashed worker's claim simply runs out.
    lockedUntil: timestamp('locked_until', { withTimezone: true, precision: 3 }),
    lastStatusCode: integer('last_status_code'),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'webhook_deliveries_pkey', columns: [t.id, t.accountId] }),
    foreignKey({
      name: 'webhook_deliveries_webhook_id_webhooks_id_fk',
      columns: [t.accountId, t.webhookId],
      foreignColumns: [webhooks.accountId, webhooks.id],
    }).onDelete('cascade'),
    foreignKey({
      name: 'webhook_deliveries_event_id_events_id_fk',
      columns: [t.accountId, t.eventId],
      foreignColumns: [events.accountId, events.id],
    }).onDelete('cascade'),
    uniqueIndex('webhook_deliveries_event_webhook_key').on(t.eventId, t.webhookId, t.accountId),
    checkIn('webhook_deliveries_event_type_check', t.eventType, EVENT_TYPES),
    // Workers claim due pending rows, account by account (lib/webhooks/worker.ts): the accounts
    // with pending rows, then each one's oldest due.
    index('webhook_deliveries_account_due_idx').on(t.accountId, t.nextAttemptAt).where(sql`${t.status} = 'pending'`),
    // Each claim counts the deliveries every worker holds, per account (lib/webhooks/worker.ts): few rows.
    index('webhook_deliveries_claimed_idx').on(t.accountId).where(sql`${t.lockedUntil} is not null`),
    index('webhook_deliveries_webhook_idx').on(t.webhookId, t.createdAt),
    // The retention sweep deletes finished deliveries by their last change (lib/retention).
    index('webhook_deliveries_finished_idx').on(t.updatedAt).where(sql`${t.status} <> 'pending'`),
    checkIn('webhook_deliveries_status_check', t.status, DELIVERY_STATUSES),
  ],
);

export const webhookAttempts = pgTable(
  'webhook_attempts',
  {
    id: bigserial('id', { mode: 'number' }).notNull(),
    // The delivery's account, so that the attempts live on the delivery's shard.
    accountId: uuid('account_id').notNull(),
    deliveryId: uuid('delivery_id').notNull(),
    attemptedAt: timestamp('attempted_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    statusCode: integer('status_code'),
    latencyMs: integer('latency_ms'),
    error: text('error'),
    // First 1 KiB of the receiver's answer.
    responseBody: text('response_body'),
    // For a webhook that accepts replies: what became of the answer's reply (sent, ignored, or why malformed).
    replyResult: text('reply_result'),
  },
  (t) => [
    primaryKey({ name: 'webhook_attempts_pkey', columns: [t.id, t.accountId] }),
    foreignKey({
      name: 'webhook_attempts_delivery_id_webhook_deliveries_id_fk',
      columns: [t.accountId, t.deliveryId],
      foreignColumns: [webhookDeliveries.accountId, webhookDeliveries.id],
    }).onDelete('cascade'),
    index('webhook_attempts_delivery_idx').on(t.deliveryId, t.id),
  ],
);
