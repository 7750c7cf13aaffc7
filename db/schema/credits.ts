import { sql } from 'drizzle-orm';
import {
  bigserial,
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
import { checkIn } from './check-in';

export const LEDGER_KINDS = [
  'starter_grant',
  'operator_grant',
  'transfer_out',
  'transfer_in',
  'message_charge',
  'refund',
  'group_merge_out',
  'group_merge_in',
] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

/**
 * Every credit movement is a row. A group's balance equals the sum of its rows; the cached
 * `phone_groups.balance` is updated in the same transaction as the row is written.
 */
export const creditLedger = pgTable(
  'credit_ledger',
  {
    id: bigserial('id', { mode: 'number' }).notNull(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    // Not a foreign key: a deleted group's history stays readable.
    groupId: integer('group_id').notNull(),
    kind: text('kind', { enum: LEDGER_KINDS }).notNull(),
    amount: integer('amount').notNull(),
    balanceAfter: integer('balance_after').notNull(),
    messageId: uuid('message_id'),
    // Pairs the two rows of one transfer or merge.
    transferId: uuid('transfer_id'),
    note: text('note'),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'credit_ledger_pkey', columns: [t.id, t.accountId] }),
    // The ledger list (newest first, keyset on created_at and id), the overview's credit totals and
    // the balance history all read an account's rows by time; kind and amount in the key make the
    // overview's totals an index-only scan.
    index('credit_ledger_account_created_idx').on(t.accountId, t.createdAt, t.id, t.kind, t.amount),
    index('credit_ledger_group_idx').on(t.groupId, t.id),
    // A message is charged at most once and refunded at most once, whatever retries happen.
    uniqueIndex('credit_ledger_message_kind_key')
      .on(t.messageId, t.kind, t.accountId)
      .where(sql`${t.messageId} is not null`),
    checkIn('credit_ledger_kind_check', t.kind, LEDGER_KINDS),
  ],
);
