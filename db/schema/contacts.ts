import { sql } from 'drizzle-orm';
import { check, index, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';

/** Bounds of a contact's fields, checked by the API (lib/contacts/schemas.ts) and by the table. */
export const CONTACT_LIMITS = { name: 100, notes: 1000, tags: 20, tag: 40 } as const;

/**
 * The account's address book: a name, tags and notes for a number. Messages, conversations and
 * webhook payloads show the contact of their counterpart number, looked up by (account_id, number).
 */
export const contacts = pgTable(
  'contacts',
  {
    id: uuid('id').notNull().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name'),
    // E.164, normalised as every number of the API (lib/phone-number.ts).
    number: text('number').notNull(),
    tags: text('tags').array().notNull().default(sql`'{}'::text[]`),
    notes: text('notes'),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'contacts_pkey', columns: [t.id, t.accountId] }),
    // One contact per number and account: the lookup of every message's name, and the import's upsert key.
    uniqueIndex('contacts_account_number_key').on(t.accountId, t.number),
    // The list, newest first, keyset-paginated on (created_at, id).
    index('contacts_account_created_idx').on(t.accountId, t.createdAt, t.id),
    // A bulk sent to `contact_tags`: the account's contacts carrying any of them.
    index('contacts_tags_idx').using('gin', t.tags),
    check('contacts_name_length_check', sql`char_length(${t.name}) <= ${sql.raw(String(CONTACT_LIMITS.name))}`),
    check('contacts_notes_length_check', sql`char_length(${t.notes}) <= ${sql.raw(String(CONTACT_LIMITS.notes))}`),
    check('contacts_tags_count_check', sql`cardinality(${t.tags}) <= ${sql.raw(String(CONTACT_LIMITS.tags))}`),
  ],
);
