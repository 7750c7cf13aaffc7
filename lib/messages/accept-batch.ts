import { sql } from 'drizzle-orm';
import { type Executor, pipelineOf, queryRows } from '@/db';
import { isDistributed } from '@/db/distributed';
import { fixedStatement } from '@/db/fixed-statement';
import { config } from '@/lib/config';
import { creditMovementCall } from '@/lib/credits/ledger';
import { outboxNotification } from '@/lib/notify/outbox';
import { batchedOnPipeline } from '@/lib/transactions';
import * as eligible from './eligibility';
import { insertOutbound, type OutboundMessage, outboundRecordset, outboundRecordsJson } from './outbound-row';
import { type MessageRow, messageColumns, messageRowOf } from './present';
import { reserveQueueSql } from './queue-room';
import { recordRecipientsCtes } from './quota';
import { historyRowsSql } from './state-machine';

/**
 * A send ready for the database: checked, its id chosen, its schedule and segments known; its
 * sender and group (`phoneId`, `groupId`) are chosen by the statement.
 */
export type BatchedSend = OutboundMessage & { country: string | null };

/**
 * Accepts `send` together with the other sends that reach this instance meanwhile, in one
 * statement on the pipelined connections (lib/transactions.ts `batchedOnPipeline`): one write, one
 * execution, one commit and one balance update per group for the whole batch, where a send alone
 * pays each of them. The answer is the inserted message, or undefined for a send the statement
 * did not take outright (not the account's phone, SIM, monthly recipient cap, request_id, opt-out,
 * country, credits) or
 * could not run: the caller sends it alone, where it gets its own answer.
 */
export async function acceptInBatch(executor: Executor, send: BatchedSend): Promise<MessageRow | undefined> {
  // Citus cannot lock rows of several shards in one statement (`for key share` across accounts):
  // every send goes alone there.
  if (!pipelineOf(executor) || (await isDistributed(executor))) return undefined;
  return acceptOnPipeline(executor, send);
}

const acceptOnPipeline = batchedOnPipeline<BatchedSend, MessageRow>(
  async (db, sends) => {
    const input = outboundRecordsJson(sends, {
      ord: (index) => index,
      country: (index) => sends[index]?.country ?? null,
    });
    const rows = await queryRows<Record<string, unknown>>(
      db,
      batchStatement({ input, queueCap: config.accountMaxQueued }),
    );
    const accepted = new Map(rows.map((row) => [String(row.id), messageRowOf(row)]));
    return sends.map((send) => accepted.get(send.id));
  },
  // What one round trip's worth of arrivals comes to, with room.
  { max: 64 },
);

/**
 * The one-statement send of lib/messages/send.ts (`acceptStatement`, whose comment explains the
 * design) for many sends: the same checks row by row, room in each account's queue for all of its
 * sends (lib/messages/queue-room.ts; an account whose sends do not all fit takes none, and they go
 * alone), then one call of the credit rule per
 * group for all of that group's sends (all or nothing, so a group that cannot cover its whole
 * batch takes none and its sends go alone), groups in id order so that two batches never lock
 * two groups in opposite orders. The sends travel as one JSON parameter (`input`), so the
 * statement's text is the same whatever the batch: built once, prepared once per connection. The
 * instance's queue cap (`queueCap`) is read on each call.
 */
const batchStatement = fixedStatement(['input', 'queueCap'], (slots) => {
  const input = outboundRecordset(slots.input, 'i', { ord: 'int', country: 'text' });
  const charge = creditMovementCall({
    accountId: sql`batch.account_id`,
    groupId: sql`batch.group_id`,
    amount: -1,
    kind: 'message_charge',
    messageIds: sql`batch.ids`,
  });
  // Each send's facts are columns of the input row `i`.
  const facts: eligible.SendFacts = {
    accountId: sql`i.account_id`,
    from: sql`i."from"`,
    fromGroup: sql`i.from_group`,
    sim: sql`i.sim`,
    to: sql`i."to"`,
    country: sql`i.country`,
    requestId: sql`i.request_id`,
  };
  return sql`
    with input as materialized (
      select * from ${input}
    ),
    sender as materialized (
      select i.ord, p.id as phone_id, p.group_id from input i
      join phones p on ${eligible.senderMatches(facts)}
      left join devices d on d.id = p.device_id
      where ${eligible.simFits(facts)} and ${eligible.recipientWithinQuota(facts)}
      for key share of p
    ),
    eligible as materialized (
      select i.*, s.phone_id as sender_phone_id, s.group_id as sender_group_id from input i
      join sender s on s.ord = i.ord
      join phone_groups g on g.account_id = i.account_id and g.id = s.group_id
      join accounts a on a.id = i.account_id
      where not exists (${eligible.requestIdHolder(facts)})
        and not ${eligible.recipientOptedOut(facts)}
        and ${eligible.countryAllowed(facts)}
    ),
    room as materialized (
      ${reserveQueueSql(
        sql`select account_id, count(*)::int as count from eligible group by account_id order by account_id`,
        slots.queueCap,
      )}
    ),
    charged as materialized (
      select batch.account_id, batch.group_id, ${charge} as balance_after
      from (
        select account_id, sender_group_id as group_id, array_agg(id order by ord) as ids from eligible
        where account_id in (select account_id from room)
        group by account_id, sender_group_id order by sender_group_id offset 0
      ) batch
    ),
    message as (
      ${insertOutbound({
        source: sql`eligible e join charged c on c.account_id = e.account_id and c.group_id = e.sender_group_id
          where c.balance_after is not null order by e.ord`,
        alias: 'e',
        chosen: { phoneId: sql`e.sender_phone_id`, groupId: sql`e.sender_group_id` },
      })}
    ),
    history as (${historyRowsSql('message', sql`created_at`)}),
    woken as (
      select ${outboxNotification(sql`phone_id`)} from message
    ),
    ${recordRecipientsCtes()}
    select (select count(*)::int from woken) as woken, (select ok from quota_guard) as quota_guard,
      ${messageColumns('message')} from message
  `;
});
