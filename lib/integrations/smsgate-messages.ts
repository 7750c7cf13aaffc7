import { and, eq, type SQL, sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import { type SmsgateRecipient, smsgateMessages } from '@/db/schema';
import { bulkStatusesSql } from '@/lib/messages/bulk-status';

export type { SmsgateRecipient } from '@/db/schema';

/**
 * The SMSGate integrator API's own record, smsgate_messages: which Simgate bulk an integrator's
 * message id names, and its recipients in their order. Only that API reads it; Simgate's messages
 * are read through lib/messages.
 */

export type StoredMessage<State extends string = string> = {
  id: string;
  ext_id: string;
  bulk_id: string | null;
  phone_id: string | null;
  recipients: SmsgateRecipient[];
  created_at: string | Date;
  state: State;
  total: number;
};

/** The filters and page of a list of stored messages; `state` is compared with what `states` makes. */
export type StoredMessageFilter = {
  extId?: string;
  from?: string;
  to?: string;
  deviceId?: string;
  state?: string;
  sort?: 'created_at' | '-created_at';
  limit?: number;
  offset?: number;
};

/**
 * How the wire names states, in SQL: `of` maps a messages.status expression to a recipient's
 * state, `aggregate` the recipients' states (a column) to the whole message's.
 */
export type StateSql = { of: (status: SQL) => SQL; aggregate: (states: SQL) => SQL };

/**
 * The account's SMSGate messages with their aggregated state, filtered, sorted and paged; `total`
 * before paging. The state is aggregated in SQL so that a filter on it pages correctly.
 */
export async function selectStates<State extends string>(
  executor: Executor,
  accountId: string,
  filter: StoredMessageFilter,
  states: StateSql,
): Promise<StoredMessage<State>[]> {
  const status = sql.raw('status');
  const conditions = [
    sql`s.account_id = ${accountId}::uuid`,
    filter.extId !== undefined ? sql`s.ext_id = ${filter.extId}::text` : undefined,
    filter.from ? sql`s.created_at >= ${filter.from}::timestamptz` : undefined,
    filter.to ? sql`s.created_at < ${filter.to}::timestamptz` : undefined,
    filter.deviceId ? sql`s.phone_id::text = ${filter.deviceId}::text` : undefined,
  ].filter((condition) => condition !== undefined);
  return queryRows<StoredMessage<State>>(
    executor,
    sql`
      with listed as (
        select s.id, s.ext_id, s.bulk_id, s.phone_id, s.recipients, s.created_at,
          (select ${states.aggregate(status)} from (
             ${bulkStatusesSql(sql`${accountId}::uuid`, sql`s.bulk_id`, states.of)}
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
