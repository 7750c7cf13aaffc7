import { and, eq, type SQL, sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import { phoneGroups } from '@/db/schema';
import { DomainError } from '@/lib/errors';
import { groupNotFound } from '@/lib/ids/groups';
import { handedOutSql } from './pacing';
import { QUOTA_MONTH, quotaSimSql } from './quota';

/** A phone of a group that may be handed the group's messages now. */
export type Candidate = {
  id: string;
  phone: string;
  /** Queued messages waiting on it, plus those assigned to it by this call so far. */
  queued: number;
  messagesPerMinute: number;
  /** The SIM slot this call's messages count for on it (lib/messages/quota.ts `quotaSimSql`). */
  sim: number;
  /** Its caps (null: none) and what counts against them now, plus what this call assigned. */
  hourlyCap: number | null;
  dailyCap: number | null;
  monthlyRecipientCap: number | null;
  thisHour: number;
  today: number;
  recipientsThisMonth: number;
};

/** The group of the account, or 404 GROUP_NOT_FOUND. */
export async function assertGroupOf(executor: Executor, accountId: string, groupId: number): Promise<void> {
  const [group] = await executor
    .select({ id: phoneGroups.id })
    .from(phoneGroups)
    .where(and(eq(phoneGroups.accountId, accountId), eq(phoneGroups.id, groupId)));
  if (!group) throw groupNotFound(groupId);
}

/**
 * Whether the SIM cards of device `d` include `sim` (a phone that reported none accepts any). `sim`
 * is a slot, none, or a column of a batched statement (null there: any SIM).
 */
export function simFitsSql(sim: number | null | undefined | SQL): SQL {
  if (sim === undefined || sim === null) return sql`true`;
  const fits = sql`(d.sim_cards is null or jsonb_array_length(d.sim_cards) = 0
        or exists (select 1 from jsonb_array_elements(d.sim_cards) c where (c->>'slot')::int = (${sim})::int))`;
  return typeof sim === 'number' ? fits : sql`((${sim}) is null or ${fits})`;
}

/**
 * Whether a recipient in `country` (an ISO code, or an expression for one) may be texted from group
 * `g` of account `a`: the group's `allowed_countries` override when it has one (null there: any
 * country), else the account's list (null: any). An unknown country (null) is allowed by no list.
 */
export function countryAllowedSql(country: string | null | SQL): SQL {
  return sql`case
        when jsonb_exists(g.sending_overrides, 'allowed_countries')
          then jsonb_typeof(g.sending_overrides->'allowed_countries') = 'null'
            or jsonb_exists(g.sending_overrides->'allowed_countries', (${country})::text)
        else a.allowed_countries is null or (${country})::text = any(a.allowed_countries)
      end`;
}

/** Whether phone `alias` is not paused by Android's SMS limiter (lib/phones/pause.ts). */
export function notPausedSql(alias: SQL): SQL {
  return sql`(${alias}.paused_until is null or ${alias}.paused_until <= now())`;
}

/**
 * The group's phones that may send now: online, not paused, SIM not waiting for its check, holding `sim` if
 * one is asked for; with their queue depth. `lock` takes their FOR KEY SHARE lock, the first lock
 * of a transaction that then moves or inserts messages (the lock order of lib/phones/delete.ts).
 */
export async function groupCandidates(
  executor: Executor,
  accountId: string,
  groupId: number,
  options: { sim?: number; exclude?: string; lock?: boolean; online?: boolean } = {},
): Promise<Candidate[]> {
  const online = options.online ?? true;
  const quotaSim = quotaSimSql(sql`${options.sim ?? null}::smallint`);
  const rows = await queryRows<CandidateRow>(
    executor,
    sql`
      select p.id, p.phone, p.messages_per_minute, p.hourly_cap, p.daily_cap, p.monthly_recipient_cap,
        ${quotaSim} as sim,
        (select count(*)::int from messages m
          where m.account_id = ${accountId}::uuid and m.phone_id = p.id and m.status = 'queued') as queued,
        ${capUsageSql(sql`${accountId}::uuid`, quotaSim)}
      from phones p left join devices d on d.id = p.device_id
      where p.account_id = ${accountId}::uuid and p.group_id = ${groupId}::int
        and p.sim_verification <> 'pending'
        and ${online ? sql`p.status = 'online' and ${notPausedSql(sql`p`)}` : sql`true`}
        and ${options.exclude ? sql`p.id <> ${options.exclude}::uuid` : sql`true`}
        and ${simFitsSql(options.sim)}
      order by p.last_heartbeat_at desc nulls last, p.id
      ${options.lock ? sql`for key share of p` : sql``}
    `,
  );
  return rows.map((row) => ({
    id: row.id,
    phone: row.phone,
    sim: Number(row.sim),
    queued: Number(row.queued),
    messagesPerMinute: Number(row.messages_per_minute),
    hourlyCap: row.hourly_cap === null ? null : Number(row.hourly_cap),
    dailyCap: row.daily_cap === null ? null : Number(row.daily_cap),
    monthlyRecipientCap: row.monthly_recipient_cap === null ? null : Number(row.monthly_recipient_cap),
    thisHour: Number(row.this_hour),
    today: Number(row.today),
    recipientsThisMonth: Number(row.recipients_this_month),
  }));
}

type CandidateRow = {
  id: string;
  phone: string;
  sim: number;
  queued: number;
  messages_per_minute: number;
  hourly_cap: number | null;
  daily_cap: number | null;
  monthly_recipient_cap: number | null;
  this_hour: number;
  today: number;
  recipients_this_month: number;
};

/**
 * A hand-out count of phone `p` (its device `d`) from its SIM `sim` since `since`, read only when the
 * phone has the cap it counts for.
 */
function handedOutSince(account: SQL, cap: SQL, since: SQL, sim: SQL): SQL {
  return sql`case when ${cap} is null then 0 else (
          select count(*)::int from messages m
          join message_status_history h on h.account_id = m.account_id and h.message_id = m.id and h.status = 'dispatched'
          where m.account_id = ${account} and m.phone_id = p.id and ${handedOutSql(sql`m`)}
            and m.updated_at >= ${since} and h.at >= ${since} and ${quotaSimSql(sql`m.sim`)} = ${sim}) end`;
}

/**
 * What counts against the caps of phone `p`'s SIM `sim`: its hand-outs in the last hour and since
 * midnight UTC (counted only for a phone with that cap, so that a group of uncapped phones pays
 * nothing), and its distinct recipients this month. `account` is `p`'s account, fixed (a subquery
 * correlated through p.account_id does not route to one shard on Citus, and FOR KEY SHARE needs it to).
 */
function capUsageSql(account: SQL, sim: SQL): SQL {
  return sql`
        ${handedOutSince(account, sql`p.hourly_cap`, sql`now() - interval '1 hour'`, sim)} as this_hour,
        ${handedOutSince(account, sql`p.daily_cap`, sql`date_trunc('day', now() at time zone 'UTC') at time zone 'UTC'`, sim)} as today,
        coalesce((select c.recipients from sim_recipient_counts c
          where c.account_id = ${account} and c.phone_id = p.id and c.sim = ${sim} and c.month = ${QUOTA_MONTH}), 0)
          as recipients_this_month`;
}

/** Which candidates each recipient heard from: the last one ever, and those that texted it this month. */
export type Sticky = { last: Map<string, string>; thisMonth: Map<string, Set<string>> };

/**
 * For each recipient, the candidate that last wrote to it, if any, and the candidates whose SIM (the
 * slot the message would count for) texted it this month: a recipient keeps hearing from the same
 * phone of the group while that phone can send, so its replies land in one conversation (and the
 * month's recipient never counts twice).
 */
export async function stickyPhones(
  executor: Executor,
  accountId: string,
  candidates: Candidate[],
  recipients: string[],
): Promise<Sticky> {
  const sticky: Sticky = { last: new Map(), thisMonth: new Map() };
  if (candidates.length === 0 || recipients.length === 0) return sticky;
  const tos = `{${recipients.join(',')}}`;
  const phoneIds = `{${candidates.map((c) => c.id).join(',')}}`;
  const sims = `{${candidates.map((c) => c.sim).join(',')}}`;
  const rows = await queryRows<{ to: string; phone_id: string; this_month: boolean }>(
    executor,
    sql`
      select * from (
        select distinct on ("to") "to", phone_id, false as this_month from messages
        where account_id = ${accountId}::uuid and direction = 'outbound'
          and "to" = any(${tos}::text[]) and phone_id = any(${phoneIds}::uuid[])
        order by "to", created_at desc
      ) last
      union all
      select r.recipient, r.phone_id, true from sim_recipients r
      join unnest(${phoneIds}::uuid[], ${sims}::smallint[]) as c(phone_id, sim) on c.phone_id = r.phone_id and c.sim = r.sim
      where r.account_id = ${accountId}::uuid and r.month = ${QUOTA_MONTH} and r.recipient = any(${tos}::text[])
    `,
  );
  for (const row of rows) {
    if (!row.this_month) {
      sticky.last.set(row.to, row.phone_id);
      continue;
    }
    const known = sticky.thisMonth.get(row.to) ?? new Set<string>();
    known.add(row.phone_id);
    sticky.thisMonth.set(row.to, known);
  }
  return sticky;
}

/**
 * Picks the phone for one recipient: one that texted it this month (its last one first), else
 * its last phone if that has room for a new recipient, else the candidate with the most room
 * under its caps (the smallest share of any cap used: hourly and daily counting its queue,
 * monthly its recipients), ties going to the queue that drains soonest under its pacing
 * (queued / messages_per_minute), counting what this call assigned. Undefined when no candidate
 * has room for a new recipient this month.
 */
export function pickCandidate(candidates: Candidate[], sticky: Sticky, to: string): Candidate | undefined {
  const known = sticky.thisMonth.get(to);
  const last = sticky.last.get(to);
  const knowing = known ? candidates.filter((candidate) => known.has(candidate.id)) : [];
  let chosen = knowing.find((candidate) => candidate.id === last) ?? knowing[0];
  if (!chosen) {
    const stuck = candidates.find((candidate) => candidate.id === last);
    if (stuck && hasMonthlyRoom(stuck)) chosen = stuck;
  }
  if (!chosen) {
    for (const candidate of candidates) {
      if (!hasMonthlyRoom(candidate)) continue;
      if (!chosen || isBetter(candidate, chosen)) chosen = candidate;
    }
  }
  if (!chosen) return undefined;
  chosen.queued += 1;
  if (!known?.has(chosen.id)) {
    chosen.recipientsThisMonth += 1;
    sticky.thisMonth.set(to, new Set([...(known ?? []), chosen.id]));
  }
  return chosen;
}

function hasMonthlyRoom(candidate: Candidate): boolean {
  return candidate.monthlyRecipientCap === null || candidate.recipientsThisMonth < candidate.monthlyRecipientCap;
}

/** The share of its tightest cap a candidate has left (1 without caps). */
export function roomOf(candidate: Candidate): number {
  const shares = [1];
  if (candidate.monthlyRecipientCap !== null) {
    shares.push(1 - candidate.recipientsThisMonth / candidate.monthlyRecipientCap);
  }
  if (candidate.hourlyCap !== null) shares.push(1 - (candidate.thisHour + candidate.queued) / candidate.hourlyCap);
  if (candidate.dailyCap !== null) shares.push(1 - (candidate.today + candidate.queued) / candidate.dailyCap);
  return Math.max(0, Math.min(...shares));
}

function isBetter(candidate: Candidate, than: Candidate): boolean {
  const room = roomOf(candidate);
  const otherRoom = roomOf(than);
  if (room !== otherRoom) return room > otherRoom;
  return drainTime(candidate) < drainTime(than);
}

function drainTime(candidate: Candidate): number {
  return (candidate.queued + 1) / Math.max(1, candidate.messagesPerMinute);
}

export function noOnlinePhone(groupId: number, detail?: string): DomainError {
  return new DomainError(
    'NO_ONLINE_PHONE',
    detail ?? `Group ${groupId} has no online phone that can send this message now.`,
    { extra: { group_id: groupId } },
  );
}

/**
 * Where a message sent through a group goes: an online candidate (`pickCandidate`); a recipient
 * that no candidate has room for this month is left out of the answer; with none online, the group's phone seen last, where it waits (and moves as soon as a
 * phone of the group is online) unless `requireOnline` asks for 409 NO_ONLINE_PHONE instead.
 */
export async function chooseGroupPhones(
  executor: Executor,
  accountId: string,
  input: { groupId: number; recipients: string[]; sim?: number; requireOnline?: boolean; lock?: boolean },
): Promise<Map<string, Candidate>> {
  await assertGroupOf(executor, accountId, input.groupId);
  let candidates = await groupCandidates(executor, accountId, input.groupId, { sim: input.sim, lock: input.lock });
  if (candidates.length === 0) {
    if (input.requireOnline) throw noOnlinePhone(input.groupId);
    const waiting = await groupCandidates(executor, accountId, input.groupId, {
      sim: input.sim,
      lock: input.lock,
      online: false,
    });
    if (waiting.length === 0) {
      throw noOnlinePhone(
        input.groupId,
        `Group ${input.groupId} has no phone that can send${input.sim ? ` from SIM ${input.sim}` : ''}.`,
      );
    }
    candidates = waiting.slice(0, 1);
  }
  const sticky = await stickyPhones(executor, accountId, candidates, input.recipients);
  const chosen = new Map<string, Candidate>();
  for (const to of input.recipients) {
    const candidate = pickCandidate(candidates, sticky, to);
    if (candidate) chosen.set(to, candidate);
  }
  return chosen;
}
