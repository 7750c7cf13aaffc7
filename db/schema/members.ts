import { index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { checkIn } from './check-in';
import { MEMBER_ROLES } from './member-roles';

export * from './member-roles';

/**
 * The people of an account, by email: the email that activated the account is its first owner. A person
 * may belong to several accounts (one row each). Removing a member deletes the row, which ends their
 * sessions at once (lib/auth/session.ts finds the member on every request).
 */
export const members = pgTable(
  'members',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    // Stored lower-cased and trimmed, as accounts.email.
    email: text('email').notNull(),
    role: text('role', { enum: MEMBER_ROLES }).notNull(),
    joinedAt: timestamp('joined_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    // Every session of this member carries the version it was opened at; signing out bumps it.
    sessionVersion: integer('session_version').notNull().default(0),
  },
  (t) => [
    uniqueIndex('members_account_email_key').on(t.accountId, t.email),
    // Sign-in by email finds the person's accounts.
    index('members_email_idx').on(t.email),
    checkIn('members_role_check', t.role, MEMBER_ROLES),
  ],
);
