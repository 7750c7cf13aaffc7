import { integer, pgTable, text, timestamp, uniqueIndex, uuid } from 'drizzle-orm/pg-core';
import { checkIn } from './check-in';

export const PLANS = ['free', 'pro'] as const;
export type PlanName = (typeof PLANS)[number];

export const accounts = pgTable(
  'accounts',
  {
    id: uuid('id').primaryKey().defaultRandom(),
    // Stored lower-cased and trimmed: an email identifies the account it binds to.
    email: text('email').notNull(),
    plan: text('plan', { enum: PLANS }).notNull().default('free'),
    // Every dashboard session carries the version it was opened at and is refused once this moves
    // past it: signing out, or "sign out everywhere", ends the account's sessions by bumping it.
    sessionVersion: integer('session_version').notNull().default(0),
    // Sent back to a number that texts a stop word (null: no confirmation, the default).
    optOutReply: text('opt_out_reply'),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    // Binding an email that exists joins its account: the lookup and the race both rest here.
    uniqueIndex('accounts_email_key').on(t.email),
    checkIn('accounts_plan_check', t.plan, PLANS),
  ],
);
