import { index, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { checkIn } from './check-in';

/**
 * Every event name there is. The catalogue (lib/event-catalogue/catalogue.ts) describes each one and must
 * have exactly these keys; the database refuses any other name in events, webhook subscriptions
 * and deliveries.
 */
export const EVENT_TYPES = [
  'message.received',
  'message.sent',
  'message.delivered',
  'message.failed',
  'message.expired',
  'message.cancelling',
  'message.cancelled',
  'message.rerouted',
  'recipient.opted_out',
  'recipient.opted_in',
  'phone.online',
  'phone.offline',
  'phone.paused',
  'phone.resumed',
  'phone.ping',
  'alert.raised',
  'alert.resolved',
  'webhook.test',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

/**
 * The account's event log (message.*, phone.*), written in the same transaction as the change
 * it reports. Webhook deliveries are fanned out from here; the id is the stable event id
 * receivers de-duplicate on.
 */
export const events = pgTable(
  'events',
  {
    id: uuid('id').notNull().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    type: text('type', { enum: EVENT_TYPES }).notNull(),
    // E.164 number of the phone the event is about: webhook phone filters match on it.
    phone: text('phone'),
    payload: jsonb('payload').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'events_pkey', columns: [t.id, t.accountId] }),
    index('events_account_created_idx').on(t.accountId, t.createdAt),
    // The retention sweep deletes old events no delivery needs any more (lib/retention).
    index('events_created_idx').on(t.createdAt),
    checkIn('events_type_check', t.type, EVENT_TYPES),
  ],
);
