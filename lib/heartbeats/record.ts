import { eq, type SQL, sql } from 'drizzle-orm';
import { type Executor, pipelineOf, queryRows } from '@/db';
import { perAccountWhenDistributed } from '@/db/distributed';
import { fixedStatement } from '@/db/fixed-statement';
import { devices, phones } from '@/db/schema';
import type { Principal } from '@/lib/auth/principal';
import { STREAM_TICK_GATHER_MS } from '@/lib/devices/sessions';
import { DomainError } from '@/lib/errors';
import { heartbeatsRecorded } from '@/lib/metrics/record';
import type { PhoneView } from '@/lib/phones/present';
import { columnsOf, rowOf } from '@/lib/raw-rows';
import { batchedOnPipeline, isTransaction, withTransaction } from '@/lib/transactions';
import { emitPhoneStatusChange, emitPing, pingWantedSql } from './phone-status';

type PhoneRow = typeof phones.$inferSelect;

import type { HeartbeatStatus } from './schemas';

export type HeartbeatInput = {
  /** E.164, already normalised. */
  phone: string;
  status: HeartbeatStatus;
  battery?: number | null;
  /** How many SIM cards the phone holds (slots 1..n), stored on its current device. */
  sims?: number;
};

function notYours(phone: string): DomainError {
  return new DomainError('FORBIDDEN', `Phone ${phone} is not registered to this account.`);
}

/** A device beat refused because the device was revoked or replaced while it was on its way. */
export function noLongerSpeaks(phone: string): DomainError {
  return new DomainError('FORBIDDEN', `This device no longer speaks for ${phone}: it was revoked or replaced.`);
}

/** The account a heartbeat is for: the key's account, and for a device key only its own number. */
function accountOf(principal: Principal, phone: string): string {
  if (principal.kind === 'account') return principal.accountId;
  if (principal.phoneNumber !== phone) {
    throw new DomainError('FORBIDDEN', `A device key reports only for its own number, ${principal.phoneNumber}.`);
  }
  if (!principal.accountId || principal.status !== 'activated') throw notYours(phone);
  return principal.accountId;
}

type Beat = Record<string, unknown> & { old_status: string; device_connected: boolean; ping_wanted: boolean };

/** The phone row as drizzle would have mapped it, from the statement's raw columns. */
function phoneRowOf(raw: Record<string, unknown>): PhoneRow {
  return rowOf(phones, raw);
}

/** `deviceId`: a device's beat, recorded only while that device is its phone's current, activated one. */
type BeatInput = {
  accountId: string;
  phone: string;
  status: HeartbeatStatus;
  battery: number | null;
  deviceId: string | null;
};

/** A text[] literal of `values` (numbers and E.164 numbers: nothing to quote), NULL for null. */
function arrayLiteral(values: Array<string | number | null>): string {
  return `{${values.map((value) => (value === null ? 'NULL' : String(value))).join(',')}}`;
}

/** The values of `oneAccountTarget`: the account, and the beats' numbers, statuses, batteries and devices as array literals. */
type OneAccountSlots = Record<'account' | 'numbers' | 'statuses' | 'batteries' | 'devices', SQL>;

/**
 * A device's beat only while the device speaks for the phone: the phone's current device, activated.
 * Revoking a device clears `phones.device_id` in the same transaction, so a beat whose phone row it
 * waited for is re-checked against the row as committed (READ COMMITTED): none lands after a revocation.
 */
function deviceStillSpeaks(device: SQL): SQL {
  return sql`(${device} is null or (p.device_id = ${device} and exists (
      select 1 from devices d where d.account_id = p.account_id and d.id = ${device} and d.status = 'activated')))`;
}

/**
 * `target` for beats of one account: the phones locked, with each beat's order, status and battery
 * looked up in array parameters by the phone's number. No set-returning function: Citus cannot
 * insert from a CTE of a statement that has one (it reads the intermediate result in the wrong format).
 */
function oneAccountTarget(slots: OneAccountSlots, quiet: boolean): SQL {
  const numbers = sql`${slots.numbers}::text[]`;
  const at = sql`array_position(${numbers}, p.phone)`;
  const status = sql`(${slots.statuses}::text[])[${at}]`;
  const battery = sql`(${slots.batteries}::smallint[])[${at}]`;
  const device = sql`(${slots.devices}::uuid[])[${at}]`;
  const pingWanted = sql`(${status} = 'online' and ${pingWantedSql(slots.account)})`;
  return sql`target as materialized (
      select p.id, ${at} - 1 as ord, p.account_id, ${status} as status, ${battery} as battery,
        p.status as old_status, ${quiet ? sql`false` : pingWanted} as ping_wanted
      from phones p
      where p.account_id = ${slots.account}::uuid and p.phone = any(${numbers}) and ${deviceStillSpeaks(device)}
        ${quiet ? sql`and p.status = ${status} and not ${pingWanted}` : sql``}
      order by p.id
      for update of p
    )`;
}

/** `target` for beats of several accounts (a batch on a single PostgreSQL): the beats as one JSON parameter. */
function accountsTarget(input: SQL, quiet: boolean): SQL {
  const pingWanted = sql`(i.status = 'online' and ${pingWantedSql(sql`i.account_id`)})`;
  return sql`input as materialized (
      select * from jsonb_to_recordset(${input}::jsonb)
        as i(ord int, account_id uuid, phone text, status text, battery smallint, device_id uuid)
    ),
    target as materialized (
      select p.id, i.ord, i.account_id, i.status, i.battery, p.status as old_status,
        ${quiet ? sql`false` : pingWanted} as ping_wanted
      from input i join phones p on p.account_id = i.account_id and p.phone = i.phone
      where ${deviceStillSpeaks(sql`i.device_id`)}
        ${quiet ? sql`and p.status = i.status and not ${pingWanted}` : sql``}
      order by p.id
      for update of p
    )`;
}

/** The statement around `target` (see `beatsStatement`); `account` fixes every table's condition to one account. */
function beatsAround(target: SQL, account: SQL | undefined): SQL {
  return sql`
    with ${target},
    beat as (
      insert into heartbeats (account_id, phone_id, status, battery)
      select account_id, id, status, battery from target
    ),
    updated as (
      update phones set status = target.status, battery = coalesce(target.battery, phones.battery),
        last_heartbeat_at = now()
      from target where phones.id = target.id
        and phones.account_id = ${account ? sql`${account}::uuid` : sql`target.account_id`}
      returning ${columnsOf(phones, 'phones')}
    )
    select ${columnsOf(phones, 'updated')}, target.old_status, target.ord as beat_ord, target.ping_wanted,
      exists (select 1 from devices d where d.id = updated.device_id and d.status = 'activated') as device_connected
    from updated join target on target.id = updated.id
  `;
}

// Each form of the statement is built once (db/fixed-statement.ts); a call gives only its values.
const ONE_ACCOUNT = ['account', 'numbers', 'statuses', 'batteries', 'devices'] as const;
const oneAccountBeats = {
  quiet: fixedStatement(ONE_ACCOUNT, (slots) => beatsAround(oneAccountTarget(slots, true), slots.account)),
  loud: fixedStatement(ONE_ACCOUNT, (slots) => beatsAround(oneAccountTarget(slots, false), slots.account)),
};
const accountsBeats = {
  quiet: fixedStatement(['input'], (slots) => beatsAround(accountsTarget(slots.input, true), undefined)),
  loud: fixedStatement(['input'], (slots) => beatsAround(accountsTarget(slots.input, false), undefined)),
};

/**
 * Heartbeats as one statement, the single beat and the batch alike: lock each phone (in id order, so
 * two statements never wait on each other in a circle), add a history row, update status, battery
 * and last heartbeat time, and answer each phone's status before, whether its device is connected
 * and whether a `phone.ping` receiver waits. `quiet` records only the beats with nothing else due
 * (the status stays as it was, no `phone.ping` receiver): the guard is re-checked on the locked rows
 * (READ COMMITTED re-reads them after waiting), so a concurrent transition is never missed, and a
 * beat that fails it writes nothing and gets no row. Phones come as parameters, so the statement's
 * text is the same whatever their number (prepared once per connection). A device's beat is
 * recorded only while the device speaks for its phone (`deviceStillSpeaks`). Beats of one
 * account (always, on a distributed database: lib/heartbeats `quietBeats`) fix `account_id` to it in
 * every table's condition, so that the statement runs on that account's shard.
 */
function beatsStatement(beats: BeatInput[], quiet: boolean): SQL {
  const first = beats[0]?.accountId;
  const form = quiet ? 'quiet' : 'loud';
  if (first && beats.every((beat) => beat.accountId === first)) {
    return oneAccountBeats[form]({
      account: first,
      numbers: arrayLiteral(beats.map((beat) => beat.phone)),
      statuses: arrayLiteral(beats.map((beat) => beat.status)),
      batteries: arrayLiteral(beats.map((beat) => beat.battery)),
      devices: arrayLiteral(beats.map((beat) => beat.deviceId)),
    });
  }
  const input = JSON.stringify(
    beats.map((beat, ord) => ({ ord, ...beat, account_id: beat.accountId, device_id: beat.deviceId })),
  );
  return accountsBeats[form]({ input });
}

/**
 * The fast path: `beatsStatement` for beats with nothing else due, many in one statement. A beat
 * that fails the guard answers undefined; so does a phone's second beat in the same call.
 */
async function quietBeats(executor: Executor, beats: BeatInput[]): Promise<Array<Beat | undefined>> {
  const seen = new Set<string>();
  const firsts = beats.filter((beat) => {
    const key = `${beat.accountId} ${beat.phone}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const recorded = await perAccountWhenDistributed(
    executor,
    firsts,
    (beat) => beat.accountId,
    async (group) => {
      const rows = await queryRows<Beat & { beat_ord: number }>(executor, beatsStatement(group, true));
      const byOrd = new Map(rows.map((row) => [Number(row.beat_ord), row]));
      return group.map((_, ord) => byOrd.get(ord));
    },
  );
  const answers = new Map(firsts.map((beat, index) => [beat, recorded[index]]));
  return beats.map((beat) => answers.get(beat));
}

/**
 * `quietBeats` for the beats that reach this instance meanwhile, in one statement on the pipelined
 * connections (lib/transactions.ts `batchedOnPipeline`); undefined for a beat the statement did not record.
 */
const quietBeatInBatch = batchedOnPipeline<BeatInput, Beat>(quietBeats, { max: 64 });

/** `quietBeatInBatch` for an open stream's presence ticks: those of the next STREAM_TICK_GATHER_MS go together. */
const tickBeatInBatch = batchedOnPipeline<BeatInput, Beat>(quietBeats, { max: 64, windowMs: STREAM_TICK_GATHER_MS });

/**
 * Records a heartbeat: a history row, the phone's status, battery and last heartbeat time, and
 * a phone.online / phone.offline event when the status changes. The phone's row is locked and
 * updated in one statement that also answers its status before, so of concurrent heartbeats
 * exactly one sees (and reports) the transition.
 *
 * Most heartbeats change nothing but the readings: they take the fast path, `quietBeats`, one
 * round trip committed by itself (with other phones' beats, in server mode). Any other (a status change, a `phone.ping`
 * receiver, SIM slots reported) runs the statement in a transaction with what follows it: three
 * round trips, the events aside. An open stream's presence `tick` waits for other streams' ticks
 * (STREAM_TICK_GATHER_MS) before its statement goes.
 */
export async function recordHeartbeat(
  executor: Executor,
  principal: Principal,
  input: HeartbeatInput,
  { tick = false }: { tick?: boolean } = {},
): Promise<PhoneView> {
  const beat: BeatInput = {
    accountId: accountOf(principal, input.phone),
    phone: input.phone,
    status: input.status,
    battery: input.battery ?? null,
    deviceId: principal.kind === 'device' ? principal.deviceId : null,
  };
  if (input.sims === undefined && !isTransaction(executor)) {
    // With pipelined connections the batch has the last word; without them the beat goes alone.
    const quiet =
      (await (tick ? tickBeatInBatch : quietBeatInBatch)(executor, beat)) ??
      (pipelineOf(executor) ? undefined : (await quietBeats(executor, [beat]))[0]);
    if (quiet) {
      heartbeatsRecorded(executor, 1);
      return { ...phoneRowOf(quiet), deviceConnected: Boolean(quiet.device_connected) };
    }
  }
  return withTransaction(executor, async (tx) => {
    const [recorded] = await queryRows<Beat>(tx, beatsStatement([beat], false));
    if (!recorded) throw beat.deviceId ? noLongerSpeaks(input.phone) : notYours(input.phone);
    const phone = phoneRowOf(recorded);
    if (input.sims !== undefined && phone.deviceId) {
      const simCards = Array.from({ length: input.sims }, (_, index) => ({
        slot: index + 1,
        phone_number: null,
        carrier: null,
      }));
      await tx.update(devices).set({ simCards }).where(eq(devices.id, phone.deviceId));
    }
    if (recorded.old_status !== input.status) await emitPhoneStatusChange(tx, phone);
    if (recorded.ping_wanted) await emitPing(tx, phone);
    heartbeatsRecorded(tx, 1);
    return { ...phone, deviceConnected: Boolean(recorded.device_connected) };
  });
}
