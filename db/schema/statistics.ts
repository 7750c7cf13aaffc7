import { sql } from 'drizzle-orm';
import { boolean, date, index, integer, pgTable, primaryKey, timestamp, uuid } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';

/**
 * The overview's daily rollups (lib/messages/daily-counts.ts): one row per account and UTC day,
 * that day's messages (kind `message`) counted by the bucket of their state, one column per bucket.
 * A row exists once the rollup sweep counted its day, or once a change marked it; `stale` says a
 * message of the day changed since it was counted (a state that moved, an inbound message dated
 * back, a phone removed with its messages), or that it never was: the statistics then count that
 * day live, and the next sweep counts it again. `credits_used` is the day's charges less refunds by
 * the ledger's time (a past day's ledger rows never change); null until a sweep counted it.
 */
export const messageDailyCounts = pgTable(
  'message_daily_counts',
  {
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    day: date('day', { mode: 'string' }).notNull(),
    queued: integer('queued').notNull().default(0),
    sent: integer('sent').notNull().default(0),
    delivered: integer('delivered').notNull().default(0),
    failed: integer('failed').notNull().default(0),
    received: integer('received').notNull().default(0),
    stale: boolean('stale').notNull().default(true),
    countedAt: timestamp('counted_at', { withTimezone: true, precision: 3 }),
    creditsUsed: integer('credits_used'),
  },
  (t) => [
    primaryKey({ name: 'message_daily_counts_pkey', columns: [t.accountId, t.day] }),
    // The sweep's passes between its daily one find the accounts with a stale day here, not by
    // reading every row of every account.
    index('message_daily_counts_stale_idx').on(t.accountId).where(sql`${t.stale}`),
  ],
);
