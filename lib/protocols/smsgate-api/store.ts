import { and, eq, sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import { type SmsgateRecipient, smsgateMessages } from '@/db/schema';
import { bulkStatusesSql } from '@/lib/messages/bulk-status';
import type { ListMessagesQuery, ProcessingState } from './schemas';
import { aggregateStateSql, stateSql } from './states';

/**
 * The adapter's own record, smsgate_messages: which Simgate bulk an integrator's message id
 * names, and its recipients in their order. No domain function reads it; Simgate's messages are
 * read through lib/messages.
 */

export type StoredMessage = {
  id: string;
  ext_id: string;
  bulk_id: string | null;
  phone_id: string | null;
  recipients: SmsgateRecipient[];
  created_at: string | Date;
  state: ProcessingState;
  total: number;
};

/**
 * The account's SMSGate messages with their aggregated state, filtered, sorted and paged; `total`
 * before paging. The state is aggregated in SQL so that a filter on it pages correctly.
 */
export async function selectStates(
  executor: Executor,
  accountId: string,
  filter: Partial<ListMessagesQuery> & { extId?: string },
): Promise<StoredMessage[]> {
  const status = sql.raw('status');
  const conditions = [
    sql`s.account_id = ${accountId}::uuid`,
    filter.extId !== undefined ? sql`s.ext_id = ${filter.extId}::text` : undefined,
    filter.from ? sql`s.created_at >= ${filter.from}::timestamptz` : undefined,
    filter.to ? sql`s.created_at < ${filter.to}::timestamptz` : undefined,
    filter.deviceId ? sql`s.phone_id::text = ${filter.deviceId}::text` : undefined,
  ].filter((condition) => condition !== undefined);
  return queryRows<StoredMessage>(
    executor,
    sql`
      with listed as (
        select s.id, s.ext_id, s.bulk_id, s.phone_id, s.recipients, s.created_at,
          (select ${aggregateStateSql(status)} from (
             ${bulkStatusesSql(sql`s.account_id`, sql`s.bulk_id`, stateSql)}
             union all
             select 'Failed' from jsonb_array_elements(s.recipients) r where r->>'message_id' is null
           ) recipient_states) as state
        from smsgate_messages s
        where ${sql.join(conditions, sql` and `)}
      )
      select *, count(*) over ()::int as total from listed
      where ${filter.state ? sql`state = ${filter.state}::text` : sql`true`}
      order by created_at ${filter.sort === 'created_at' ? sql`asc` : sql`desc`}, id
      limit ${filter.limit ?? 1} offset ${filter.offset ?? 0}
    `,
  );
}

/** Claims the integrator's id for the account: the row's id, or undefined when the id is taken. */
export async function claimExtId(executor: Executor, accountId: string, extId: string): Promise<string | undefined> {
  const [claimed] = await executor
    .insert(smsgateMessages)
    .values({ accountId, extId, recipients: [] })
    .onConflictDoNothing()
    .returning({ id: smsgateMessages.id });
  return claimed?.id;
}

/** Ties a claimed id to the bulk sent for it. */
export async function recordBulk(
  executor: Executor,
  accountId: string,
  id: string,
  sent: { bulkId: string; phoneId: string | null; recipients: SmsgateRecipient[] },
): Promise<void> {
  await executor
    .update(smsgateMessages)
    .set(sent)
    .where(and(eq(smsgateMessages.accountId, accountId), eq(smsgateMessages.id, id)));
}

/** The stored message the integrator calls `extId`, if the account has one. */
export async function findByExtId(
  executor: Executor,
  accountId: string,
  extId: string,
): Promise<{ bulkId: string | null } | undefined> {
  const [row] = await executor
    .select({ bulkId: smsgateMessages.bulkId })
    .from(smsgateMessages)
    .where(and(eq(smsgateMessages.accountId, accountId), eq(smsgateMessages.extId, extId)));
  return row;
}

/** The integrator's id of the message that became this Simgate bulk, if it was sent through that API. */
export async function extIdOfBulk(executor: Executor, accountId: string, bulkId: string): Promise<string | undefined> {
  const [row] = await executor
    .select({ extId: smsgateMessages.extId })
    .from(smsgateMessages)
    .where(and(eq(smsgateMessages.accountId, accountId), eq(smsgateMessages.bulkId, bulkId)));
  return row?.extId;
}
