import { index, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { AUDIT_ACTIONS, AUDIT_ACTOR_KINDS } from './audit-actions';
import { checkIn } from './check-in';

export * from './audit-actions';

/**
 * The account's audit log: who did what, when, from which address. Written in the same
 * transaction as the change it records, so a change without its entry cannot commit.
 */
export const auditLog = pgTable(
  'audit_log',
  {
    id: uuid('id').notNull().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    action: text('action', { enum: AUDIT_ACTIONS }).notNull(),
    actorKind: text('actor_kind', { enum: AUDIT_ACTOR_KINDS }).notNull(),
    // The key prefix (sk_…/dk_…) or the session's email: never a secret.
    actorLabel: text('actor_label'),
    // The member behind a dashboard session (members.id). No foreign key: the entry outlives the member,
    // and actor_label keeps their email.
    memberId: uuid('member_id'),
    ip: text('ip'),
    // The resource acted on (a key, webhook, phone or group id) and what changed.
    target: text('target'),
    details: jsonb('details').$type<Record<string, unknown>>().notNull().default({}),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    primaryKey({ name: 'audit_log_pkey', columns: [t.id, t.accountId] }),
    // Newest first per account, optionally by action.
    index('audit_log_account_created_idx').on(t.accountId, t.createdAt, t.id),
    index('audit_log_account_action_idx').on(t.accountId, t.action, t.createdAt),
    // The retention sweep deletes the oldest entries (lib/retention).
    index('audit_log_created_idx').on(t.createdAt),
    checkIn('audit_log_action_check', t.action, AUDIT_ACTIONS),
    checkIn('audit_log_actor_kind_check', t.actorKind, AUDIT_ACTOR_KINDS),
  ],
);
