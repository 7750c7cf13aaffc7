import { and, desc, eq } from 'drizzle-orm';
import { type Executor, getDb } from '@/db';
import { devInbox, type INBOX_CHANNELS } from '@/db/schema';
import { log } from '@/lib/log';
import { iso } from '@/lib/wire';

export type InboxChannel = (typeof INBOX_CHANNELS)[number];

export type InboxItem = {
  channel: InboxChannel;
  to: string;
  subject?: string | null;
  text: string;
  code?: string | null;
};

/**
 * Keeps an SMS or email that would have gone out, when no SMS sender or SMTP server is set up.
 * The log says only that something arrived: a code stays in the inbox, never in a log, since logs
 * travel further (shipped, shared in bug reports) and server mode can serve this inbox too.
 */
export async function deliverToDevInbox(executor: Executor, item: InboxItem): Promise<void> {
  await executor.insert(devInbox).values({
    channel: item.channel,
    to: item.to,
    subject: item.subject ?? null,
    text: item.text,
    code: item.code ?? null,
  });
  log.info({ channel: item.channel, to: item.to }, `dev inbox: ${item.channel} to ${item.to}`);
}

export type InboxEntry = {
  channel: InboxChannel;
  to: string;
  subject: string | null;
  text: string;
  code: string | null;
  created_at: string;
};

/** Newest first, optionally only what went to one address or number. */
export async function listDevInbox(executor: Executor, filter: { to?: string; limit: number }): Promise<InboxEntry[]> {
  const rows = await executor
    .select()
    .from(devInbox)
    .where(and(filter.to ? eq(devInbox.to, filter.to) : undefined))
    .orderBy(desc(devInbox.createdAt), desc(devInbox.id))
    .limit(filter.limit);
  return rows.map((row) => ({
    channel: row.channel,
    to: row.to,
    subject: row.subject,
    text: row.text,
    code: row.code,
    created_at: iso(row.createdAt) ?? '',
  }));
}

/** The same list for the /dev/inbox page, on the process's database. */
export async function readDevInbox(filter: { to?: string; limit: number }): Promise<InboxEntry[]> {
  return listDevInbox(await getDb(), filter);
}
