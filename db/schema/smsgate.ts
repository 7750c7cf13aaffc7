import { sql } from 'drizzle-orm';
import {
  foreignKey,
  index,
  integer,
  jsonb,
  pgTable,
  primaryKey,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { checkIn } from './check-in';
import { phones } from './fleet';
import { apiKeys } from './keys';
import { bulkMessages } from './messages';

/** One recipient of an SMSGate message: its Simgate message, or why it was refused. */
export type SmsgateRecipient = { phone_number: string; message_id: string | null; error: string | null };

/**
 * A message sent through SMSGate's integrator API: one per request, with one Simgate message per
 * recipient (a bulk). The integrator's `id` is its idempotency key within the account.
 */
export const smsgateMessages = pgTable(
  'smsgate_messages',
  {
    id: uuid('id').notNull().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    extId: text('ext_id').notNull(),
    bulkId: uuid('bulk_id'),
    // The phone it went through (the first recipient's), shown as `deviceId`.
    phoneId: uuid('phone_id'),
    recipients: jsonb('recipients').$type<SmsgateRecipient[]>().notNull(),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'smsgate_messages_pkey', columns: [t.id, t.accountId] }),
    foreignKey({
      name: 'smsgate_messages_bulk_id_bulk_messages_id_fk',
      columns: [t.accountId, t.bulkId],
      foreignColumns: [bulkMessages.accountId, bulkMessages.id],
    }).onDelete('cascade'),
    // `phone_id` names its phone without a foreign key (Citus refuses `ON DELETE SET NULL (phone_id)` on
    // a key with the distribution column): deleting a phone nulls it (lib/phones/delete.ts).
    // Idempotency of the integrator's id rests on this index.
    uniqueIndex('smsgate_messages_account_ext_id_key').on(t.accountId, t.extId),
    index('smsgate_messages_account_created_idx').on(t.accountId, t.createdAt),
    index('smsgate_messages_bulk_idx').on(t.bulkId).where(sql`${t.bulkId} is not null`),
  ],
);

export const SMSGATE_TOKEN_USES = ['access', 'refresh'] as const;

/**
 * Every JWT issued to SMSGate's integrator API (lib/protocols/smsgate-api/jwt.ts): its `jti`, the
 * API key it was issued under (revoking the key ends its tokens), and when it was revoked, if it
 * was. A token is accepted only while its row is here unrevoked: this is the revocation list. A
 * refresh token names the access token issued with it (`parent_jti`); revoking one revokes both.
 */
export const smsgateTokens = pgTable(
  'smsgate_tokens',
  {
    jti: text('jti').notNull(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    keyId: uuid('key_id')
      .notNull()
      .references(() => apiKeys.id, { onDelete: 'cascade' }),
    use: text('use', { enum: SMSGATE_TOKEN_USES }).notNull(),
    parentJti: text('parent_jti'),
    expiresAt: timestamp('expires_at', { withTimezone: true, precision: 3 }).notNull(),
    revokedAt: timestamp('revoked_at', { withTimezone: true, precision: 3 }),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'smsgate_tokens_pkey', columns: [t.jti, t.accountId] }),
    index('smsgate_tokens_account_expires_idx').on(t.accountId, t.expiresAt),
    index('smsgate_tokens_parent_idx').on(t.parentJti).where(sql`${t.parentJti} is not null`),
    checkIn('smsgate_tokens_use_check', t.use, SMSGATE_TOKEN_USES),
  ],
);

/**
 * A request to an SMSGate-app phone to send again what its inbox received in a period
 * (`MessagesExportRequested`). The app's re-sent `sms:received` calls that land within the
 * request's window and period count here: `recovered` became new messages, `repeated` were known.
 */
export const smsgateInboxExports = pgTable(
  'smsgate_inbox_exports',
  {
    id: uuid('id').notNull().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    phoneId: uuid('phone_id').notNull(),
    since: timestamp('since', { withTimezone: true, precision: 3 }).notNull(),
    until: timestamp('until', { withTimezone: true, precision: 3 }).notNull(),
    messageTypes: text('message_types').notNull().default('SMS'),
    recovered: integer('recovered').notNull().default(0),
    repeated: integer('repeated').notNull().default(0),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'smsgate_inbox_exports_pkey', columns: [t.id, t.accountId] }),
    foreignKey({
      name: 'smsgate_inbox_exports_phone_id_phones_id_fk',
      columns: [t.accountId, t.phoneId],
      foreignColumns: [phones.accountId, phones.id],
    }).onDelete('cascade'),
    index('smsgate_inbox_exports_phone_created_idx').on(t.phoneId, t.createdAt),
  ],
);
