import { type SQL, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { DomainError } from '@/lib/errors';
import { SQLSTATE, sqlState } from '@/lib/transactions';

/**
 * The monthly recipient cap of a SIM: carriers block a consumer SIM that texts too many different
 * numbers in a month. A phone is one SIM, or, when its device reports two or more SIM slots, one
 * SIM per slot, each under the phone's cap (`quotaSimSql` says which slot a message counts for).
 * `sim_recipients` holds each SIM's distinct recipients of a calendar month, UTC (an account has no
 * time zone of its own: its send window's time zone says when a window opens, not where a month
 * begins); `sim_recipient_counts` counts them.
 *
 * Every statement that writes outbound rows (the single send alone and batched, the bulk) records
 * its recipients with `recordRecipientsCtes` after its `message` CTE: a recipient new this month
 * adds one to its SIM's counter through an upsert, and the guard compares the new count with the
 * cap. A statement checks the cap first on its snapshot (`withinRecipientQuota`), so a send over
 * the cap is refused before anything moves; two sends that race for the last room both pass that
 * check, and the counter's upsert (which waits for the other's row lock and re-reads the row)
 * counts them one after the other. The second statement's count is past the cap: it raises QT001
 * in `simgate_recipient_quota_guard` (migration 0033) and is undone whole, its charge included.
 * (The upsert's own `where` names no other table: Citus runs it on a shard, where a subquery on a
 * distributed table in `on conflict … where` fails.)
 */

/** The month a statement counts in: the first day of the current calendar month in UTC. */
export const QUOTA_MONTH = sql`(date_trunc('month', now() at time zone 'UTC'))::date`;

/** The first instant of the month after `now` (UTC): when a monthly cap resets. */
export function monthlyResetAt(now: Date = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
}

/** The first instant of `now`'s month (UTC). */
export function monthStart(now: Date = new Date()): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1));
}

/** `monthStart` as the `month` column holds it (YYYY-MM-DD). */
export function monthKey(now: Date = new Date()): string {
  return monthStart(now).toISOString().slice(0, 10);
}

/**
 * The SIM slot a message counts for under its phone's caps, with the phone's device under alias
 * `device` (left joined: none reports no SIM): on a phone that reports two or more SIM slots, the
 * message's slot `sim`, or its first reported slot when the message names none (the SIM a phone
 * sends from by default is its first one); on any other phone, 1 (one SIM, one count, whatever
 * slot a message names).
 */
export function quotaSimSql(sim: SQL, device: SQL = sql`d`): SQL {
  return sql`(case when ${severalSimsSql(device)}
      then coalesce((${sim})::smallint,
        (select min((card->>'slot')::int) from jsonb_array_elements(${device}.sim_cards) card)::smallint)
      else 1::smallint end)`;
}

/**
 * The SIM slots a phone's caps count apart, from what its device reported (`devices.sim_cards`):
 * its slots, lowest first, when it reports two or more; else undefined (one SIM, one count).
 */
export function countedSims(simCards: Array<{ slot: number }> | null | undefined): number[] | undefined {
  const slots = [...new Set((simCards ?? []).map((card) => card.slot))].sort((a, b) => a - b);
  return (simCards?.length ?? 0) > 1 ? slots : undefined;
}

/** `quotaSimSql` for one message of a phone whose counted slots are `slots` (`countedSims`). */
export function quotaSimOf(sim: number | null, slots: number[] | undefined): number {
  if (!slots) return 1;
  return sim ?? slots[0] ?? 1;
}

/** Whether the device under alias `device` reports two or more SIM slots: its phone counts per slot. */
export function severalSimsSql(device: SQL = sql`d`): SQL {
  return sql`(jsonb_array_length(coalesce(${device}.sim_cards, '[]'::jsonb)) > 1)`;
}

/**
 * Whether phone `p` (a row of `phones` under that alias, its device `d` left joined) may text `to`
 * this month from the SIM slot `sim` counts for: it has no cap, or that SIM already texted `to`
 * this month, or its count is under the cap, as the statement's snapshot shows.
 */
export function withinRecipientQuota(accountId: SQL, to: SQL, sim: SQL): SQL {
  return sql`(p.monthly_recipient_cap is null
        or exists (select 1 from sim_recipients r where r.account_id = ${accountId} and r.phone_id = p.id
          and r.sim = ${quotaSimSql(sim)} and r.month = ${QUOTA_MONTH} and r.recipient = (${to})::text)
        or coalesce((select c.recipients from sim_recipient_counts c where c.account_id = ${accountId}
          and c.phone_id = p.id and c.sim = ${quotaSimSql(sim)} and c.month = ${QUOTA_MONTH}), 0)
          < p.monthly_recipient_cap)`;
}

/**
 * CTEs (to follow `message`, the statement's inserted outbound rows) that record each message's
 * recipient for its phone's SIM and month and count the new ones under the phone's cap, and
 * `quota_guard`, which the statement must select from: it raises when a SIM had no room left.
 * Encrypted messages (whose number Simgate cannot read) and SIM checks are not counted.
 */
export function recordRecipientsCtes(): SQL {
  return sql`${recordedCte},
    counted as (
      insert into sim_recipient_counts as c (account_id, phone_id, sim, month, recipients)
        select n.account_id, n.phone_id, n.sim, ${QUOTA_MONTH}, n.added from (${addedPerSim}) n
        join phones p on p.account_id = n.account_id and p.id = n.phone_id
        where p.monthly_recipient_cap is null or n.added <= p.monthly_recipient_cap
        order by n.phone_id, n.sim
        on conflict (account_id, phone_id, sim, month) do update set recipients = c.recipients + excluded.recipients
        returning c.account_id, c.phone_id, c.sim, c.recipients
    ),
    quota_guard as (
      select simgate_recipient_quota_guard(
        (select count(*) from counted) = (select count(*) from (select distinct phone_id, sim from recorded) s)
        and not exists (
          select 1 from counted k join phones p on p.account_id = k.account_id and p.id = k.phone_id
          where k.recipients > p.monthly_recipient_cap)) as ok
    )`;
}

const addedPerSim = sql`select r.account_id, r.phone_id, r.sim, count(*)::int as added from recorded r
  group by r.account_id, r.phone_id, r.sim`;

const recordedCte = sql`
    recorded as (
      insert into sim_recipients (account_id, phone_id, sim, month, recipient)
        select distinct m.account_id, m.phone_id, ${quotaSimSql(sql`m.sim`)}, ${QUOTA_MONTH}, m."to" from message m
        join phones p on p.account_id = m.account_id and p.id = m.phone_id
        left join devices d on d.id = p.device_id
        where not m.encrypted and m.kind in ('message', 'data')
        order by 2, 3, 5
        on conflict do nothing
        returning account_id, phone_id, sim
    )`;

/**
 * Records the recipient of a message that moved to another phone of its group (lib/messages/reroute.ts)
 * for that phone. Unguarded: the move chose a phone with room (assign.ts `pickCandidate`), and a
 * move never fails a device's report; a race past the cap leaves the counter one over it.
 */
export async function recordMovedRecipient(
  tx: Executor,
  message: { accountId: string; phoneId: string; to: string; encrypted: boolean; kind: string; sim: number | null },
): Promise<void> {
  await tx.execute(sql`
    with message as (
      select ${message.accountId}::uuid as account_id, ${message.phoneId}::uuid as phone_id, ${message.to}::text as "to",
        ${message.encrypted}::boolean as encrypted, ${message.kind}::text as kind, ${message.sim}::smallint as sim
    ),
    ${recordedCte}
    insert into sim_recipient_counts (account_id, phone_id, sim, month, recipients)
      select n.account_id, n.phone_id, n.sim, ${QUOTA_MONTH}, n.added from (${addedPerSim}) n
      on conflict (account_id, phone_id, sim, month)
        do update set recipients = sim_recipient_counts.recipients + excluded.recipients
  `);
}

/** Whether `error` is the guard's refusal: a concurrent send took the SIM's last room. */
export function isQuotaRace(error: unknown): boolean {
  return sqlState(error) === SQLSTATE.quotaRace;
}

/**
 * 422 RECIPIENT_QUOTA_REACHED for a send from one phone; `sim` names the SIM slot that is full on a
 * phone that reports several (null on a one-SIM phone).
 */
export function recipientQuotaReached(
  phone: string,
  cap: number,
  sim: number | null = null,
  now: Date = new Date(),
): DomainError {
  const resetsAt = monthlyResetAt(now).toISOString();
  const who = sim === null ? `Phone ${phone}` : `The SIM in slot ${sim} of phone ${phone}`;
  return new DomainError(
    'RECIPIENT_QUOTA_REACHED',
    `${who} has texted its ${cap} distinct recipients for this month (the phone's monthly_recipient_cap); it texts new numbers again from ${resetsAt}. Numbers it already texted this month can still be sent to.`,
    { extra: { phone, ...(sim === null ? {} : { sim }), monthly_recipient_cap: cap, resets_at: resetsAt } },
  );
}

/** 422 RECIPIENT_QUOTA_REACHED for a send through a group none of whose phones has room. */
export function groupQuotaReached(groupId: number, now: Date = new Date()): DomainError {
  const resetsAt = monthlyResetAt(now).toISOString();
  return new DomainError(
    'RECIPIENT_QUOTA_REACHED',
    `No phone of group ${groupId} that can send now has room under its monthly_recipient_cap for a new recipient, and none has texted this number this month; the caps reset at ${resetsAt}.`,
    { extra: { group_id: groupId, resets_at: resetsAt } },
  );
}

/** 422 RECIPIENT_QUOTA_REACHED for a bulk that a concurrent send left without the room it planned with. */
export function bulkQuotaRace(now: Date = new Date()): DomainError {
  return new DomainError(
    'RECIPIENT_QUOTA_REACHED',
    'Another send took the last room under a sending phone’s monthly_recipient_cap while this bulk was accepted; nothing was sent or charged. Send it again: recipients past the caps are then listed in `rejected`.',
    { extra: { resets_at: monthlyResetAt(now).toISOString() } },
  );
}
