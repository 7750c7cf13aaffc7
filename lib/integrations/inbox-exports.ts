import { and, desc, eq, gte, lte, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { smsgateInboxExports } from '@/db/schema';

/**
 * Requests that a phone send its inbox again (smsgate_inbox_exports): the period asked for, and how
 * many of the SMS re-sent for it were new (`recovered`) or already known (`repeated`).
 */

export type InboxExportRow = typeof smsgateInboxExports.$inferSelect;

/** Records a request for the account's phone; `messageTypes` is stored comma-separated. */
export async function recordInboxExport(
  executor: Executor,
  accountId: string,
  request: { phoneId: string; since: Date; until: Date; messageTypes: string[] },
): Promise<InboxExportRow> {
  const [row] = await executor
    .insert(smsgateInboxExports)
    .values({
      accountId,
      phoneId: request.phoneId,
      since: request.since,
      until: request.until,
      messageTypes: request.messageTypes.join(','),
    })
    .returning();
  if (!row) throw new Error('recordInboxExport: insert returned nothing');
  return row;
}

/** Forgets a request of the account (one the phone never received). */
export async function dropInboxExport(executor: Executor, accountId: string, id: string): Promise<void> {
  await executor
    .delete(smsgateInboxExports)
    .where(and(eq(smsgateInboxExports.accountId, accountId), eq(smsgateInboxExports.id, id)));
}

/** The phone's latest `limit` requests, newest first. */
export async function latestInboxExports(
  executor: Executor,
  accountId: string,
  phoneId: string,
  limit: number,
): Promise<InboxExportRow[]> {
  return executor
    .select()
    .from(smsgateInboxExports)
    .where(and(eq(smsgateInboxExports.accountId, accountId), eq(smsgateInboxExports.phoneId, phoneId)))
    .orderBy(desc(smsgateInboxExports.createdAt), desc(smsgateInboxExports.id))
    .limit(limit);
}

/**
 * Counts a received SMS toward the phone's latest request made within `countingMinutes` whose
 * period holds its receive time: `created` (the de-duplication made a new message) is recovered,
 * else repeated. An SMS no request covers changes nothing.
 */
export async function countInboxExportReceipt(
  executor: Executor,
  phone: { id: string; accountId: string },
  receivedAt: Date,
  created: boolean,
  countingMinutes: number,
): Promise<void> {
  const [open] = await executor
    .select({ id: smsgateInboxExports.id })
    .from(smsgateInboxExports)
    .where(
      and(
        eq(smsgateInboxExports.accountId, phone.accountId),
        eq(smsgateInboxExports.phoneId, phone.id),
        gte(smsgateInboxExports.createdAt, sql`now() - make_interval(mins => ${countingMinutes})`),
        lte(smsgateInboxExports.since, receivedAt),
        gte(smsgateInboxExports.until, receivedAt),
      ),
    )
    .orderBy(desc(smsgateInboxExports.createdAt))
    .limit(1);
  if (!open) return;
  await executor
    .update(smsgateInboxExports)
    .set(
      created
        ? { recovered: sql`${smsgateInboxExports.recovered} + 1` }
        : { repeated: sql`${smsgateInboxExports.repeated} + 1` },
    )
    .where(and(eq(smsgateInboxExports.accountId, phone.accountId), eq(smsgateInboxExports.id, open.id)));
}
