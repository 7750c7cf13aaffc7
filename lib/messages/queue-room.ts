import { type SQL, sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import { config } from '@/lib/config';
import { DomainError } from '@/lib/errors';
import { queueFullRefused } from '@/lib/metrics/record';
import { withTransaction } from '@/lib/transactions';

/**
 * Back-pressure: an account holds at most `max_queued_messages` queued messages (Settings → Sending,
 * capped by the instance's ACCOUNT_MAX_QUEUED); a send past it answers 429 QUEUE_FULL, before any
 * credit moves. The count is `account_queues.queued`, an upper bound of the account's queued
 * messages: a send adds its messages to it under the row's lock, only while the sum stays within the
 * limit (so two sends racing for the last place never both take it), and nothing takes them off
 * when they leave the queue. When it is full, the account's queued messages are counted (an
 * index-only count of messages_account_queued_idx, bounded by the limit) and it is set to that count:
 * once in a run of sends, not a count of the account's messages per send. A message handed to a
 * phone and queued again by a retry is not added again: after a recount such retries may take the
 * queue past the limit by the messages that were out on phones.
 */

/** Seconds a client is told to wait (Retry-After) after QUEUE_FULL. */
export const QUEUE_FULL_RETRY_AFTER_S = 60;

/** A full queue is recounted at most this often: sends refused meanwhile cost no count. */
const RECOUNT_EVERY_MS = 5_000;

/** The instance's cap (ACCOUNT_MAX_QUEUED), as a statement's parameter. */
function instanceQueueCap(): SQL {
  return sql`${config.accountMaxQueued}`;
}

/** The account's limit, as an SQL expression; `instanceCap` as a statement built once passes it. */
export function queueLimitSql(accountId: SQL, instanceCap: SQL = instanceQueueCap()): SQL {
  return sql`(select least(a.max_queued_messages, ${instanceCap}::int) from accounts a where a.id = ${accountId})`;
}

/**
 * An INSERT … ON CONFLICT that adds `count` to the account's queue count when `when` holds and the sum
 * stays within its limit, answering the account's id when it did. The conflicting row is locked and
 * read at its latest version, whatever the statement's snapshot: concurrent sends are counted exactly.
 * Its rows go in `source`'s order (account order in a batch, so that two batches never lock two
 * accounts in opposite orders).
 */
export function reserveQueueSql(source: SQL, instanceCap: SQL = instanceQueueCap()): SQL {
  return sql`
    insert into account_queues as q (account_id, queued, queue_limit)
    select r.account_id, r.count, r.queue_limit from (
      select s.account_id, s.count, ${queueLimitSql(sql`s.account_id`, instanceCap)} as queue_limit from (${source}) s
    ) r where r.count <= r.queue_limit
    on conflict (account_id) do update set queued = q.queued + excluded.queued, queue_limit = excluded.queue_limit
      where q.queued + excluded.queued <= excluded.queue_limit
    returning q.account_id`;
}

export type QueueRoom = { queued: number; limit: number };

/**
 * Counts the account's queued messages (up to its limit) and sets its queue count to that, the row
 * locked first so that the count (a statement of its own, on a snapshot taken after the lock) sees
 * every send that committed before. A recount within RECOUNT_EVERY_MS of the last one answers the
 * count as it is.
 */
export async function recountQueue(executor: Executor, accountId: string): Promise<QueueRoom> {
  return withTransaction(executor, async (tx) => {
    await tx.execute(sql`insert into account_queues (account_id) values (${accountId}::uuid) on conflict do nothing`);
    const [row] = await queryRows<{ queued: number; limit: number; fresh: boolean }>(
      tx,
      sql`select q.queued, ${queueLimitSql(sql`q.account_id`)} as limit,
            q.recounted_at > now() - make_interval(secs => ${RECOUNT_EVERY_MS / 1000}) as fresh
          from account_queues q where q.account_id = ${accountId}::uuid for update`,
    );
    if (!row) throw new Error(`recountQueue: no account ${accountId}`);
    const limit = Number(row.limit);
    if (row.fresh === true) return { queued: Number(row.queued), limit };
    const [counted] = await queryRows<{ queued: number }>(
      tx,
      sql`update account_queues set recounted_at = now(), queued = (
            select count(*)::int from (
              select 1 from messages m where m.account_id = ${accountId}::uuid and m.status = 'queued'
              limit ${limit + 1}
            ) c
          )
          where account_id = ${accountId}::uuid
          returning queued`,
    );
    return { queued: Number(counted?.queued ?? row.queued), limit };
  });
}

/**
 * The account's queued messages now (counted up to its limit, one more showing it is past it) and
 * its limit: what the Overview shows.
 */
export async function queueNow(executor: Executor, accountId: string): Promise<QueueRoom> {
  const [row] = await queryRows<{ queued: number; limit: number }>(
    executor,
    sql`with l as (select ${queueLimitSql(sql`${accountId}::uuid`)} as limit)
        select (select count(*)::int from (
            select 1 from messages m where m.account_id = ${accountId}::uuid and m.status = 'queued'
            limit (select l.limit + 1 from l)
          ) c) as queued, (select l.limit from l) as limit`,
  );
  return { queued: Number(row?.queued ?? 0), limit: Number(row?.limit ?? 0) };
}

/**
 * Takes room for `count` messages in the caller's transaction (a bulk), recounting once when the
 * count says the queue is full; 429 QUEUE_FULL when even the recount leaves no room.
 */
export async function reserveQueue(tx: Executor, accountId: string, count: number): Promise<void> {
  const source = sql`select ${accountId}::uuid as account_id, ${count}::int as count`;
  if ((await queryRows(tx, reserveQueueSql(source))).length > 0) return;
  const room = await recountQueue(tx, accountId);
  if (room.queued + count <= room.limit && (await queryRows(tx, reserveQueueSql(source))).length > 0) return;
  throw queueFull(room, count);
}

export function queueFull(room: QueueRoom, count = 1): DomainError {
  queueFullRefused();
  const asked = count === 1 ? 'one more message' : `${count} more messages`;
  return new DomainError(
    'QUEUE_FULL',
    `The account holds ${room.queued} queued messages, at most ${room.limit} (max_queued_messages): ${asked} would pass it. Try again once the phones have taken some.`,
    {
      extra: { queued: room.queued, max_queued_messages: room.limit },
      headers: { 'Retry-After': String(QUEUE_FULL_RETRY_AFTER_S) },
    },
  );
}
