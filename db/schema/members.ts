import { sql } from 'drizzle-orm';
import { bigint, index, integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
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

/**
 * An invitation to join an account with a role, sent by email as a link holding a random token (only its
 * SHA-256 is stored). It lives 7 days; the invitee signs in with an email code sent to the invited email
 * and becomes a member (lib/members/invitations.ts). An email has at most one live invitation per
 * account: inviting it again refreshes that one (role, link, expiry), and the old link stops working.
 */
export const memberInvitations = pgTable(
  'member_invitations',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    // Stored lower-cased and trimmed, as members.email.
    email: text('email').notNull(),
    role: text('role', { enum: MEMBER_ROLES }).notNull(),
    tokenHash: text('token_hash').notNull(),
    invitedByMemberId: uuid('invited_by_member_id').references(() => members.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    expiresAt: timestamp('expires_at', { withTimezone: true, precision: 3 }).notNull(),
    acceptedAt: timestamp('accepted_at', { withTimezone: true, precision: 3 }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, precision: 3 }),
  },
  (t) => [
    // The link finds its invitation by the token's hash.
    uniqueIndex('member_invitations_token_hash_key').on(t.tokenHash),
    // One live invitation per email and account; it also serves the account's list of live ones.
    uniqueIndex('member_invitations_live_key')
      .on(t.accountId, t.email)
      .where(sql`${t.acceptedAt} is null and ${t.revokedAt} is null`),
    // A sign-in code is mailed to an email with a live invitation, before any account is known.
    index('member_invitations_live_email_idx')
      .on(t.email)
      .where(sql`${t.acceptedAt} is null and ${t.revokedAt} is null`),
    checkIn('member_invitations_role_check', t.role, MEMBER_ROLES),
  ],
);
