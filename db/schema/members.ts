import { bigint, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { checkIn } from './check-in';

/**
 * What a member may do (lib/members/roles.ts holds the table of permissions): `owner` everything, including
 * members and deleting the account (an account always keeps one); `admin` everything but ownership;
 * `developer` keys, webhooks, automation, sending settings and messages; `operator` phones, groups,
 * messages, opt-outs and contacts; `viewer` reads only. Ordered from most to least.
 */
export const MEMBER_ROLES = ['owner', 'admin', 'developer', 'operator', 'viewer'] as const;
export type MemberRole = (typeof MEMBER_ROLES)[number];

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
    // Two-factor sign-in (lib/members/two-factor.ts): the TOTP secret, sealed like webhook secrets. It is
    // pending (asked for at sign-in only once confirmed) while `totp_enabled_at` is null.
    totpSecretEncrypted: text('totp_secret_encrypted'),
    totpEnabledAt: timestamp('totp_enabled_at', { withTimezone: true, precision: 3 }),
    // The 30-second step of the last TOTP code accepted: a code is accepted once, and none older after it.
    totpLastStep: bigint('totp_last_step', { mode: 'number' }),
    // SHA-256 of the recovery codes not used yet (each opens one sign-in, then leaves the array).
    totpRecoveryCodeHashes: text('totp_recovery_code_hashes').array(),
  },
  (t) => [
    uniqueIndex('members_account_email_key').on(t.accountId, t.email),
    // Sign-in by email finds the person's accounts.
    index('members_email_idx').on(t.email),
    checkIn('members_role_check', t.role, MEMBER_ROLES),
  ],
);
