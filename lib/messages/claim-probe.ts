import { sql } from 'drizzle-orm';
import { type Database, queryRows } from '@/db';
import { perAccountWhenDistributed } from '@/db/distributed';
import { batcher } from '@/lib/batch';
import { config } from '@/lib/config';

/**
 * What a claim would find for a phone, looked at without a transaction: whether anything is due or
 * handed out long enough ago to go again (then the claim's transaction runs), when the next
 * scheduled message falls due, and whether the phone holds messages it was asked to drop (`cancelling`,
 * any, and since a time).
 */
export type ClaimProbe = {
  due: boolean;
  unreported: boolean;
  nextDueAt: Date | null;
  cancelling: boolean;
  cancellingSince: boolean;
};

export type ClaimProbeItem = {
  accountId: string;
  phoneId: string;
  now: Date;
  /** Handed out at or before this and not reported on: goes again (CLAIM_REDELIVER_AFTER_S). */
  redeliverBefore: Date;
  cancelsSince: Date;
};

/**
 * The probe of `phone` at `now`: its messages handed out CLAIM_REDELIVER_AFTER_S before it go again,
 * and cancels count from `cancelsSince` (by default, now).
 */
export function probeItemOf(
  phone: { accountId: string; id: string },
  now: Date,
  cancelsSince: Date = now,
): ClaimProbeItem {
  return {
    accountId: phone.accountId,
    phoneId: phone.id,
    now,
    redeliverBefore: new Date(now.getTime() - config.claimRedeliverAfterSeconds * 1000),
    cancelsSince,
  };
}

/** Phones one probe statement looks at, at most. */
export const PROBE_BATCH_MAX = 500;

type ProbeRow = {
  ord: string | number;
  due: boolean;
  unreported: boolean;
  next_due: string | Date | null;
  cancelling: boolean;
  cancelling_since: boolean;
  paused_until: string | Date | null;
};

/**
 * One statement for every phone in `items`: the same predicates as the claim's own (lib/messages/
 * claim.ts), over the same indexes, answered in the items' order.
 */
async function probeMany(db: Database, items: ClaimProbeItem[]): Promise<ClaimProbe[]> {
  return perAccountWhenDistributed(
    db,
    items,
    (item) => item.accountId,
    (group) => probeStatement(db, group),
  );
}

/**
 * The probe of `items` in one statement. Items of one account (always, on a distributed database:
 * `probeMany`) fix `account_id` to it, so that the statement runs on that account's shard.
 */
async function probeStatement(db: Database, items: ClaimProbeItem[]): Promise<ClaimProbe[]> {
  const iso = (dates: Date[]) => dates.map((date) => date.toISOString());
  const first = items[0]?.accountId;
  const account = first && items.every((item) => item.accountId === first) ? sql`${first}::uuid` : sql`p.account_id`;
  const rows = await queryRows<ProbeRow>(
    db,
    sql`
    select p.ord,
      exists(select 1 from messages m where m.account_id = ${account} and m.phone_id = p.phone_id
        and m.status = 'queued' and m.send_at <= p.now and (m.expires_at is null or m.expires_at > p.now)) as due,
      exists(select 1 from messages m where m.account_id = ${account} and m.phone_id = p.phone_id
        and m.direction = 'outbound' and m.status = 'dispatched' and m.updated_at <= p.redeliver_before
        and (m.expires_at is null or m.expires_at > p.now)) as unreported,
      (select min(m.send_at) from messages m where m.account_id = ${account} and m.phone_id = p.phone_id
        and m.status = 'queued' and m.send_at > p.now) as next_due,
      exists(select 1 from messages m where m.account_id = ${account} and m.phone_id = p.phone_id
        and m.direction = 'outbound' and m.status = 'cancelling') as cancelling,
      exists(select 1 from messages m where m.account_id = ${account} and m.phone_id = p.phone_id
        and m.direction = 'outbound' and m.status = 'cancelling' and m.updated_at > p.cancels_since) as cancelling_since,
      (select ph.paused_until from phones ph where ph.account_id = ${account} and ph.id = p.phone_id
        and ph.paused_until > p.now) as paused_until
    from unnest(
      ${`{${items.map((item) => item.accountId).join(',')}}`}::uuid[],
      ${`{${items.map((item) => item.phoneId).join(',')}}`}::uuid[],
      ${`{${iso(items.map((item) => item.now)).join(',')}}`}::timestamptz[],
      ${`{${iso(items.map((item) => item.redeliverBefore)).join(',')}}`}::timestamptz[],
      ${`{${iso(items.map((item) => item.cancelsSince)).join(',')}}`}::timestamptz[]
    ) with ordinality as p(account_id, phone_id, now, redeliver_before, cancels_since, ord)`,
  );
  const byOrd = new Map(rows.map((row) => [Number(row.ord), row]));
  return items.map((_, index) => {
    const row = byOrd.get(index + 1);
    // A paused phone (lib/phones/pause.ts) has nothing due before its pause ends.
    const pausedUntil = row?.paused_until ? new Date(row.paused_until) : null;
    const nextDue = row?.next_due ? new Date(row.next_due) : null;
    return {
      due: row?.due === true && !pausedUntil,
      unreported: row?.unreported === true && !pausedUntil,
      nextDueAt: pausedUntil && (row?.due || row?.unreported || nextDue) ? pausedUntil : nextDue,
      cancelling: row?.cancelling === true,
      cancellingSince: row?.cancelling_since === true,
    };
  });
}

type Probe = (item: ClaimProbeItem) => Promise<ClaimProbe>;
type ProbeLane = { inFlight: number; gather?: boolean; windowMs?: number };

/** How long a look nobody waits on gathers others before its statement goes (`probeClaimPatiently`). */
export const PATIENT_PROBE_WINDOW_MS = 1000;

// One batcher per lane and database handle (tests swap databases).
const lanes = new Map<ProbeLane, WeakMap<Database, Probe>>();

function probeOn(lane: ProbeLane, db: Database): Probe {
  let byDatabase = lanes.get(lane);
  if (!byDatabase) {
    byDatabase = new WeakMap();
    lanes.set(lane, byDatabase);
  }
  let probe = byDatabase.get(db);
  if (!probe) {
    probe = batcher<ClaimProbeItem, ClaimProbe>({
      ...lane,
      max: PROBE_BATCH_MAX,
      run: (items) => probeMany(db, items),
    });
    byDatabase.set(db, probe);
  }
  return probe;
}

/**
 * How long a long-poll's look gathers others before its statement goes (`probeClaimBeforeWaiting`):
 * an idle fleet's re-polls come at random moments, each alone under natural batching.
 */
export const WAITING_PROBE_WINDOW_MS = 25;

const WAITED_ON: ProbeLane = { inFlight: 2, gather: true };
const BEFORE_WAITING: ProbeLane = { inFlight: 2, windowMs: WAITING_PROBE_WINDOW_MS };
const PATIENT: ProbeLane = { inFlight: 1, windowMs: PATIENT_PROBE_WINDOW_MS };

/**
 * Looks at what a claim would find, batched: the probes that arrive while one statement runs go
 * together as the next (lib/batch.ts), so that a thousand phones re-polling at once cost a few
 * statements, and a phone with nothing to claim costs no transaction, and holds no connection while
 * it waits.
 */
export function probeClaim(db: Database, item: ClaimProbeItem): Promise<ClaimProbe> {
  return probeOn(WAITED_ON, db)(item);
}

/**
 * `probeClaim` for a long-poll's look before it waits: the looks of the next WAITING_PROBE_WINDOW_MS
 * go as one statement. Nearly every such look finds nothing and the claim waits on; one that finds a
 * message hands it out that much later. A send meanwhile wakes the claim without this look
 * (lib/messages/claim.ts races it with the wake-up).
 */
export function probeClaimBeforeWaiting(db: Database, item: ClaimProbeItem): Promise<ClaimProbe> {
  return probeOn(BEFORE_WAITING, db)(item);
}

/**
 * `probeClaim` for a look nobody waits on (an open stream's periodic one, lib/notify/outbox.ts): the
 * looks of the next PATIENT_PROBE_WINDOW_MS go as one statement, where streams looking at random
 * moments would each cost one under natural batching.
 */
export function probeClaimPatiently(db: Database, item: ClaimProbeItem): Promise<ClaimProbe> {
  return probeOn(PATIENT, db)(item);
}
