import { bigserial, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';
import { checkIn } from './check-in';

export const INBOX_CHANNELS = ['sms', 'email'] as const;

/** Codes and emails that would have gone out, when no SMS sender or SMTP server is configured. */
export const devInbox = pgTable(
  'dev_inbox',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    channel: text('channel', { enum: INBOX_CHANNELS }).notNull(),
    to: text('to').notNull(),
    subject: text('subject'),
    text: text('text').notNull(),
    code: text('code'),
    createdAt: timestamp('created_at', { withTimezone: true, precision: 3 }).notNull().defaultNow(),
  },
  (t) => [
    index('dev_inbox_created_idx').on(t.createdAt),
    checkIn('dev_inbox_channel_check', t.channel, INBOX_CHANNELS),
  ],
);
