import { bigserial, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { checkIn } from './check-in';

/** `inbound`: the number texted a stop word to a phone of the account; `manual`: added through the API. */
export const OPT_OUT_SOURCES = ['inbound', 'manual'] as const;
export type OptOutSource = (typeof OPT_OUT_SOURCES)[number];

/** Numbers that asked the account to stop texting them: sends to them are refused before any charge. */
export const optOuts = pgTable(
  'opt_outs',
  {
    id: bigserial('id', { mode: 'number' }).notNull(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    // The sender as received: an E.164 number (what sends are checked against) or a short code.
    phone: text('phone').notNull(),
    source: text('source', { enum: OPT_OUT_SOURCES }).notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'opt_outs_pkey', columns: [t.id, t.accountId] }),
    // One row per number and account; every send looks it up by this key.
    uniqueIndex('opt_outs_account_phone_key').on(t.accountId, t.phone),
    checkIn('opt_outs_source_check', t.source, OPT_OUT_SOURCES),
  ],
);
