import { sql } from 'drizzle-orm';
import { index, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { checkIn } from './check-in';
import { devices } from './devices';
import { MEMBER_ROLES, members } from './members';

/** Account-wide API keys (`sk_…`). Only the SHA-256 hash is stored; the key is shown once. */
export const apiKeys = pgTable(
  'api_keys',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    name: text('name').notNull(),
    keyHash: text('key_hash').notNull(),
    prefix: text('prefix').notNull(),
    createdByDeviceId: uuid('created_by_device_id').references(() => devices.id, { onDelete: 'set null' }),
    // The member who created the key (null: made by a device, the operator, or before members).
    createdByMemberId: uuid('created_by_member_id').references(() => members.id, { onDelete: 'set null' }),
    // What the key may do, as a member of that role may (lib/members/roles.ts); null: everything.
    role: text('role', { enum: MEMBER_ROLES }),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    lastUsedAt: timestamp('last_used_at', { withTimezone: true, precision: 3 }),
    revokedAt: timestamp('revoked_at', { withTimezone: true, precision: 3 }),
  },
  (t) => [
    // Hot path: every integrator request finds its key by hash.
    uniqueIndex('api_keys_key_hash_key').on(t.keyHash),
    index('api_keys_account_idx').on(t.accountId, t.createdAt),
    index('api_keys_live_idx').on(t.accountId).where(sql`${t.revokedAt} is null`),
    checkIn('api_keys_role_check', t.role, MEMBER_ROLES),
  ],
);
