import { and, eq, type SQL, sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import { phoneGroups } from '@/db/schema';
import { DomainError } from '@/lib/errors';
import { groupNotFound } from '@/lib/ids/groups';

/** A phone of a group that may be handed the group's messages now. */
export type Candidate = {
  id: string;
  phone: string;
  /** Queued messages waiting on it, plus those assigned to it by this call so far. */
  queued: number;
  messagesPerMinute: number;
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

/**
 * The group's phones that may send now: online, SIM not waiting for its check, holding `sim` if
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
  const rows = await queryRows<{ id: string; phone: string; queued: number; messages_per_minute: number }>(
    executor,
    sql`
      select p.id, p.phone, p.messages_per_minute,
        (select count(*)::int from messages m
          where m.account_id = p.account_id and m.phone_id = p.id and m.status = 'queued') as queued
      from phones p left join devices d on d.id = p.device_id
      where p.account_id = ${accountId}::uuid and p.group_id = ${groupId}::int
        and p.sim_verification <> 'pending'
        and ${online ? sql`p.status = 'online'` : sql`true`}
        and ${options.exclude ? sql`p.id <> ${options.exclude}::uuid` : sql`true`}
        and ${simFitsSql(options.sim)}
      order by p.last_heartbeat_at desc nulls last, p.id
      ${options.lock ? sql`for key share of p` : sql``}
    `,
  );
  return rows.map((row) => ({
    id: row.id,
    phone: row.phone,
    queued: Number(row.queued),
    messagesPerMinute: Number(row.messages_per_minute),
  }));
}

/**
 * For each recipient, the candidate that last wrote to it, if any: a recipient keeps hearing from
 * the same phone of the group while that phone can send, so its replies land in one conversation.
 */
export async function stickyPhones(
  executor: Executor,
  accountId: string,
  candidates: Candidate[],
  recipients: string[],
): Promise<Map<string, string>> {
  if (candidates.length === 0 || recipients.length === 0) return new Map();
  const rows = await queryRows<{ to: string; phone_id: string }>(
    executor,
    sql`
      select distinct on ("to") "to", phone_id from messages
      where account_id = ${accountId}::uuid and direction = 'outbound'
        and "to" = any(${`{${recipients.join(',')}}`}::text[])
        and phone_id = any(${`{${candidates.map((c) => c.id).join(',')}}`}::uuid[])
      order by "to", created_at desc
    `,
  );
  return new Map(rows.map((row) => [row.to, row.phone_id]));
}

/**
 * Picks the phone for one recipient: its sticky phone, else the candidate whose queue drains
 * soonest under its pacing (queued / messages_per_minute), counting what this call assigned.
 */
export function pickCandidate(candidates: Candidate[], sticky: Map<string, string>, to: string): Candidate {
  const stuck = sticky.get(to);
  let chosen = stuck ? candidates.find((candidate) => candidate.id === stuck) : undefined;
  if (!chosen) {
    for (const candidate of candidates) {
      if (!chosen || drainTime(candidate) < drainTime(chosen)) chosen = candidate;
    }
  }
  if (!chosen) throw new Error('pickCandidate: no candidates');
  chosen.queued += 1;
  return chosen;
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
 * Where a message sent through a group goes: an online candidate (sticky, else the shortest
 * queue); with none online, the group's phone seen last, where it waits (and moves as soon as a
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
  return new Map(input.recipients.map((to) => [to, pickCandidate(candidates, sticky, to)]));
}
