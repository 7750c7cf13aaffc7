import { sql } from 'drizzle-orm';
import { index, jsonb, pgTable, primaryKey, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { accounts } from './accounts';
import { ALERT_KINDS, ALERT_SUBJECT_TYPES } from './alert-kinds';
import { checkIn } from './check-in';

export * from './alert-kinds';

/**
 * Alerts for account holders (lib/alerts): a row is raised when a condition starts and resolved
 * when it ends. Evaluators on several instances insert with ON CONFLICT DO NOTHING against
 * alerts_open_key, so a condition has one open alert, and only the instance whose insert (or
 * resolving update) returned the row sends its email and webhook event.
 */
export const alerts = pgTable(
  'alerts',
  {
    id: uuid('id').notNull().defaultRandom(),
    accountId: uuid('account_id')
      .notNull()
      .references(() => accounts.id, { onDelete: 'cascade' }),
    kind: text('kind', { enum: ALERT_KINDS }).notNull(),
    subjectType: text('subject_type', { enum: ALERT_SUBJECT_TYPES }).notNull(),
    // A phone or webhook uuid, or a group's integer id, as text.
    subjectId: text('subject_id').notNull(),
    // What the subject was called when the alert was raised: a phone's number, a group's name, a webhook's URL.
    subjectName: text('subject_name').notNull(),
    // The measured values and the threshold they crossed.
    values: jsonb('values').$type<Record<string, unknown>>().notNull(),
    raisedAt: timestamp('raised_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
    resolvedAt: timestamp('resolved_at', { withTimezone: true, precision: 3 }),
  },
  (t) => [
    primaryKey({ name: 'alerts_pkey', columns: [t.id, t.accountId] }),
    // One open alert per condition, whatever the number of evaluators.
    uniqueIndex('alerts_open_key').on(t.accountId, t.kind, t.subjectId).where(sql`${t.resolvedAt} is null`),
    // Lists: newest first per account.
    index('alerts_account_raised_idx').on(t.accountId, t.raisedAt, t.id),
    checkIn('alerts_kind_check', t.kind, ALERT_KINDS),
    checkIn('alerts_subject_type_check', t.subjectType, ALERT_SUBJECT_TYPES),
  ],
);
