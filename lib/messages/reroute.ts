import { and, eq, type SQL, sql } from 'drizzle-orm';
import { type Database, type Executor, queryRows, withQueryOrigin } from '@/db';
import { messages } from '@/db/schema';
import { withTransaction } from '@/lib/transactions';
import { type Candidate, groupCandidates, notPausedSql, pickCandidate, stickyPhones } from './assign';
import type { MessageRow } from './present';
import { recordMovedRecipient } from './quota';
import { requeueMessage } from './state-machine';

const BATCH_SIZE = 500;

/** Phone `alias` cannot take its queued group messages: not online, or paused by Android's limiter. */
function strandedOn(alias: SQL): SQL {
  return sql`(${alias}.status <> 'online' or not ${notPausedSql(alias)})`;
}

/**
 * Moves one message of a group to `target` (state-machine.ts `requeueMessage`): at most once. Its
 * recipient now counts for `target` this month.
 */
async function moveMessage(
  tx: Executor,
  message: MessageRow,
  target: Candidate,
  reason: string,
  at: Date,
  options: { attempt?: boolean } = {},
): Promise<MessageRow | undefined> {
  const moved = await requeueMessage(
    tx,
    message,
    { kind: 'rerouted', to: target, reason, attempt: options.attempt === true },
    at,
  );
  if (moved?.phoneId) await recordMovedRecipient(tx, { ...moved, phoneId: moved.phoneId });
  return moved;
}

/**
 * A message sent through a group whose phone reported a failure that a retry could fix: it moves
 * to another online phone of the group (nothing is refunded or emitted as failed). Answers the
 * moved message, or undefined when no other phone can take it (the failure then stands).
 */
export async function rerouteAfterFailure(
  tx: Executor,
  message: MessageRow,
  reason: string,
): Promise<MessageRow | undefined> {
  if (message.fromGroup === null || message.status !== 'dispatched') return undefined;
  const candidates = await groupCandidates(tx, message.accountId, message.fromGroup, {
    sim: message.sim ?? undefined,
    exclude: message.phoneId,
    lock: true,
  });
  if (candidates.length === 0) return undefined;
  const sticky = await stickyPhones(tx, message.accountId, candidates, [message.to]);
  const target = pickCandidate(candidates, sticky, message.to);
  if (!target) return undefined;
  return moveMessage(tx, message, target, reason, new Date(), { attempt: true });
}

/**
 * Queued messages sent through a group whose phone is not online (it went offline, or none was
 * online when they were sent) or is paused (lib/phones/pause.ts) move to the group's online phones. Each group's batch is one
 * transaction: its candidate phones are locked first (phone before messages, as everywhere), then
 * its stranded messages FOR UPDATE SKIP LOCKED, so concurrent sweeps on several instances share
 * the work and never move a message twice. Returns how many messages moved.
 */
export async function rerouteStranded(db: Database, now: Date = new Date()): Promise<number> {
  return withQueryOrigin('task:stranded reroute', async () => {
    const groups = await queryRows<{ account_id: string; group_id: number }>(
      db,
      sql`
      select distinct m.account_id, m.from_group as group_id
      from messages m join phones p on p.account_id = m.account_id and p.id = m.phone_id
      where m.status = 'queued' and m.from_group is not null and ${strandedOn(sql`p`)}
        and exists (
          select 1 from phones q
          where q.account_id = m.account_id and q.group_id = m.from_group and q.status = 'online'
            and ${notPausedSql(sql`q`)} and q.sim_verification <> 'pending'
        )
    `,
    );
    let total = 0;
    for (const group of groups) {
      for (;;) {
        const moved = await withTransaction(db, (tx) =>
          rerouteGroupBatch(tx, group.account_id, Number(group.group_id), now),
        );
        total += moved;
        if (moved < BATCH_SIZE) break;
      }
    }
    return total;
  });
}

async function rerouteGroupBatch(tx: Executor, accountId: string, groupId: number, now: Date): Promise<number> {
  // Locked before the messages: phone before messages, as everywhere.
  const bySim = new Map<number | null, Candidate[]>();
  bySim.set(null, await groupCandidates(tx, accountId, groupId, { lock: true }));
  if (bySim.get(null)?.length === 0) return 0;
  const stranded = await queryRows<{ id: string; paused: boolean }>(
    tx,
    sql`
      select m.id, p.status = 'online' as paused
      from messages m join phones p on p.account_id = m.account_id and p.id = m.phone_id
      where m.account_id = ${accountId}::uuid and m.from_group = ${groupId}::int and m.status = 'queued'
        and ${strandedOn(sql`p`)}
      order by m.send_at, m.created_at
      limit ${BATCH_SIZE}
      for update of m skip locked
    `,
  );
  if (stranded.length === 0) return 0;
  const rows = await tx
    .select()
    .from(messages)
    .where(
      and(
        eq(messages.accountId, accountId),
        sql`${messages.id} = any(${`{${stranded.map((row) => row.id).join(',')}}`}::uuid[])`,
      ),
    )
    .orderBy(messages.sendAt, messages.createdAt);
  const paused = new Set(stranded.filter((row) => row.paused).map((row) => row.id));
  let moved = 0;
  for (const row of rows) {
    let candidates = bySim.get(row.sim);
    if (!candidates) {
      candidates = await groupCandidates(tx, accountId, groupId, { sim: row.sim ?? undefined });
      bySim.set(row.sim, candidates);
    }
    if (candidates.length === 0) continue;
    const sticky = await stickyPhones(tx, accountId, candidates, [row.to]);
    const target = pickCandidate(candidates, sticky, row.to);
    const reason = paused.has(row.id) ? 'phone paused' : 'phone offline';
    // No phone of the group has room for this recipient this month: it waits where it is.
    if (target && (await moveMessage(tx, row, target, reason, now))) moved += 1;
  }
  return moved;
}
