import { and, asc, desc, eq, gt, inArray, isNull, lte, min, ne, not, notInArray, or, type SQL, sql } from 'drizzle-orm';
import { type Database, type Executor, pausingDeadline, queryRows } from '@/db';
import { devices, type HeldReason, messages, phones } from '@/db/schema';
import type { DevicePrincipal } from '@/lib/auth/principal';
import { config } from '@/lib/config';
import { openDeviceSession } from '@/lib/devices/sessions';
import { DomainError } from '@/lib/errors';
import { subscribeOutbox } from '@/lib/notify/outbox';
import { shutdownSignal, untilShutdown } from '@/lib/runtime/lifecycle';
import { effectiveSending } from '@/lib/settings/settings';
import { msUntilOpen } from '@/lib/settings/window';
import { withTransaction } from '@/lib/transactions';
import { type AccountPhone, awaitingCancel } from './cancelling';
import { type ClaimProbe, probeClaim, probeClaimBeforeWaiting, probeItemOf } from './claim-probe';
import { type DevicePhone, findConnectingPhone } from './device-phone';
import {
  type DispatchCounts,
  dispatchCounts,
  NONE,
  type Pacing,
  type PacingLimits,
  pacingFrom,
  simPacingOf,
} from './pacing';
import { type MessageRow, messageColumns, messageRowOf } from './present';
import { countedSims, quotaSimOf } from './quota';
import { afterTransition, historyRowsSql, idIn, sourcesOf } from './state-machine';

export type ClaimOptions = {
  limit: number;
  waitMs: number;
  signal?: AbortSignal;
  /** Which due messages go first when there are more than `limit`: the oldest (default) or the newest. */
  order?: 'oldest' | 'newest';
};

/**
 * The device API's claim: the messages claimed, and the ids of those the phone holds and was asked
 * to drop (`cancelling`), to report `cancelled` once dropped (or `sent`, if too late).
 */
export async function claimForDevice(
  db: Database,
  device: DevicePrincipal,
  options: ClaimOptions,
): Promise<{ claimed: MessageRow[]; cancel: string[] }> {
  const { claimed, phone, probe, cancel } = await claim(db, device, options);
  // A woken claim read the list in its transaction; otherwise the claim's last look says whether the
  // phone holds any message to drop: most answers need no query.
  if (cancel) return { claimed, cancel };
  if (!probe?.cancelling) return { claimed, cancel: [] };
  const cancelling = await awaitingCancel(db, phone, { limit: CANCEL_LIST_MAX });
  return { claimed, cancel: cancelling.map((row) => row.id) };
}

/** How early a timer may fire by performance.now() (libuv counts whole milliseconds). */
const TIMER_SLACK_MS = 5;

/** Allowance for the clocks of instances: a cancel this much before a long-poll began still ends it. */
const CANCEL_CLOCK_SKEW_MS = 1000;

/** Most ids one claim answer asks the phone to drop; the rest come in the next answers. */
export const CANCEL_LIST_MAX = 100;

/** The phone's messages handed out to it and not yet reported on (sent, failed, …). */
function handedOutTo(phone: AccountPhone): SQL | undefined {
  return and(
    eq(messages.accountId, phone.accountId),
    eq(messages.phoneId, phone.id),
    eq(messages.direction, 'outbound'),
    eq(messages.status, 'dispatched'),
  );
}

/**
 * The phone's messages handed out to it and not reported on, longest held first, at most `limit`,
 * leaving out the ids in `except` (those just claimed).
 */
export async function handedOutMessages(
  executor: Executor,
  phone: AccountPhone,
  options: { except: string[]; limit: number },
): Promise<MessageRow[]> {
  return executor
    .select()
    .from(messages)
    .where(and(handedOutTo(phone), options.except.length > 0 ? notInArray(messages.id, options.except) : undefined))
    .orderBy(asc(messages.updatedAt))
    .limit(options.limit);
}

/**
 * Hands the device the oldest due queued messages of its phone, now `dispatched`, after those it
 * was handed CLAIM_REDELIVER_AFTER_S ago or more and has not reported on (`sent`, `failed`, …):
 * their answer may never have reached it (a dropped connection, an instance that died after the
 * commit). Those go out again with the same ids, no new transition and no new charge; a phone
 * treats an id it holds already as known. With a wait,
 * an empty outbox is watched until a send wakes it (or a scheduled message falls due, or pacing
 * frees room), the wait runs out, the request is aborted, or the server begins to shut down (then
 * it answers what it has, possibly nothing, and the device simply claims again elsewhere or later).
 */
export async function claimOutbox(db: Database, device: DevicePrincipal, options: ClaimOptions): Promise<MessageRow[]> {
  return (await claim(db, device, options)).claimed;
}

/**
 * A claim's answer: what it handed out, and either its last look (`probe`) or, from a woken claim that
 * handed out messages without one, the ids of the phone's messages to drop (`cancel`).
 */
type ClaimAnswer = { claimed: MessageRow[]; phone: DevicePhone; probe?: ClaimProbe; cancel?: string[] };

async function claim(db: Database, device: DevicePrincipal, options: ClaimOptions): Promise<ClaimAnswer> {
  if (options.waitMs <= 0) return claimLoop(db, device, options);
  // A long-poll is a session of the device: it ends when the device's key is revoked or its phone
  // removed (in any instance), taken before the device is checked so no revocation falls between.
  const session = await openDeviceSession(device, 'poll');
  // It also ends when the client hangs up or the server begins to shut down.
  const ends = untilShutdown(options.signal, session.signal);
  try {
    const answer = await claimLoop(db, device, { ...options, signal: ends.signal });
    if (answer.claimed.length === 0 && session.reason() === 'revoked') {
      throw new DomainError(
        'UNAUTHENTICATED',
        'This device was revoked, or its phone removed, while the claim waited.',
      );
    }
    return answer;
  } finally {
    ends.release();
    session.release();
  }
}

/**
 * The time an empty long-poll answers: its wait, less up to a fifth (at most 5 s) at random for waits
 * of 10 s or more, so that phones that connected together (after a restart, say) do not all come back
 * together every wait, each storm of claims queueing behind the last.
 */
export function jitteredWaitMs(waitMs: number, random: () => number = Math.random): number {
  if (waitMs < 10_000) return waitMs;
  return waitMs - Math.round(random() * Math.min(waitMs / 5, 5_000));
}

async function claimLoop(db: Database, device: DevicePrincipal, options: ClaimOptions): Promise<ClaimAnswer> {
  const phone = await findConnectingPhone(db, device);
  // A claim without a wait answers after one look: only a long-poll's signal (`claim`) ends a wait.
  const signal = options.signal ?? shutdownSignal();
  const deadline = performance.now() + jitteredWaitMs(options.waitMs);
  // Cancels asked from (about) now on end a long-poll: an earlier one was in an earlier answer.
  const cancelsSince = new Date(Date.now() - CANCEL_CLOCK_SKEW_MS);
  let woken = false;
  for (;;) {
    // Subscribed before looking, so a send committing in between still wakes this claim.
    const subscription = options.waitMs > 0 ? await subscribeOutbox(phone.id) : undefined;
    try {
      const now = new Date();
      // Woken by a send, whose message is most likely due: the claim runs at once, without the look,
      // and reads the phone's list of messages to drop in its transaction.
      const woke = woken ? await claimOnce(db, phone, device.deviceId, options, now, { cancels: true }) : undefined;
      if (woke && woke.claimed.length > 0) return { claimed: woke.claimed, phone, cancel: woke.cancel };
      // A look without a transaction (batched with other phones'): a claim that finds nothing to hand
      // out costs one shared statement and holds no connection while it waits. A woken claim that
      // handed out nothing (its phone paced or held, its message taken by another claim, or woken by
      // a cancel) looks too, for when to claim again and for cancels. A long-poll's first look, before
      // it waits, goes in a statement gathered over a few milliseconds (`probeClaimBeforeWaiting`),
      // and a wake-up meanwhile claims at once instead of waiting for the look.
      const item = probeItemOf(phone, now, cancelsSince);
      const looking = subscription && !woke ? probeClaimBeforeWaiting(db, item) : probeClaim(db, item);
      const probe = subscription
        ? await Promise.race([looking, subscription.wake.then(() => undefined)])
        : await looking;
      if (!probe) {
        looking.catch(() => {});
        if (deadline - performance.now() <= 0 || signal.aborted) return { claimed: [], phone };
        woken = true;
        continue;
      }
      let claimed: MessageRow[] = [];
      let retryInMs = probe.nextDueAt ? Math.max(1, probe.nextDueAt.getTime() - now.getTime()) : undefined;
      if (woke && (probe.due || probe.unreported)) {
        ({ claimed, retryInMs } = woke);
      } else if (!woke && (probe.due || probe.unreported)) {
        ({ claimed, retryInMs } = await claimOnce(db, phone, device.deviceId, options, now));
      }
      const remaining = deadline - performance.now();
      if (claimed.length > 0 || !subscription || remaining <= 0 || signal.aborted) {
        return { claimed, phone, probe };
      }
      // A cancel wakes the phone's claims too: a long-poll answers at once when the phone was
      // asked to drop a message it holds while it waited (the answer's `cancel` list).
      if (probe.cancellingSince) return { claimed, phone, probe };
      // Not a wait for the database: the request's deadline for it moves on by its length.
      await pausingDeadline(subscription.wait(Math.min(remaining, retryInMs ?? remaining), signal));
      woken = subscription.woken();
      // A wait that ran out unwoken answers empty without looking again: the phone claims again at
      // once, and that claim's look finds whatever a lost wake-up left (half the looks of an idle fleet).
      // (A timer may fire a millisecond before performance.now() says it is due: the wait is out all the same.)
      if (!woken && (deadline - performance.now() <= TIMER_SLACK_MS || signal.aborted)) {
        return { claimed, phone, probe };
      }
    } finally {
      subscription?.cancel();
    }
  }
}

async function claimOnce(
  db: Database,
  phone: DevicePhone,
  deviceId: string,
  { limit, order = 'oldest' }: Pick<ClaimOptions, 'limit' | 'order'>,
  asked: Date,
  { cancels = false }: { cancels?: boolean } = {},
): Promise<{ claimed: MessageRow[]; retryInMs?: number; cancel?: string[] }> {
  return withTransaction(db, async (tx) => {
    // The lock serialises this phone's claims (not its sends), so pacing counts every concurrent claim.
    // Its statement is made first (`execute()` hands it to the driver at once), and the two after it
    // follow it on the transaction's connection without waiting for its answer: one round trip for
    // the three. The database runs them in that order, so they run once the lock is held: the
    // sending settings, which need no lock, and the phone's hand-outs, which then hold those of a
    // claim that held the lock before this one (test/api/phone-quotas.test.ts fails if the count
    // goes first). They are counted from the time asked, on (`andLater`): this claim's time is known
    // only once it holds the lock, and windows that start a little earlier and run on miss none.
    const locking = tx
      .select({
        messagesPerMinute: phones.messagesPerMinute,
        hourlyCap: phones.hourlyCap,
        dailyCap: phones.dailyCap,
        jitterSeconds: phones.jitterSeconds,
        groupId: phones.groupId,
        pausedUntil: phones.pausedUntil,
        simCards: devices.simCards,
      })
      .from(phones)
      .leftJoin(devices, eq(devices.id, phones.deviceId))
      // Only while the device is still the phone's: a revoked one (or a removed phone) claims nothing.
      .where(and(eq(phones.accountId, phone.accountId), eq(phones.id, phone.id), eq(phones.deviceId, deviceId)))
      .for('no key update', { of: phones })
      .execute();
    const handedOut = dispatchCounts(tx, phone.accountId, [phone.id], asked, { andLater: true });
    const [[locked], sending, counts] = await Promise.all([
      locking,
      effectiveSending(tx, phone.accountId, phone.groupId),
      handedOut,
    ]);
    if (!locked) return { claimed: [] };
    // The claim's time is once it holds the lock: a concurrent claim that asked later but took the
    // lock first handed out at its own time, which pacing counts (above).
    const now = new Date(Math.max(asked.getTime(), Date.now()));
    // Paused by Android's SMS limiter (lib/phones/pause.ts): nothing, not even a redelivery, until it ends.
    if (locked.pausedUntil && locked.pausedUntil > now) {
      return { claimed: [], retryInMs: locked.pausedUntil.getTime() - now.getTime() };
    }
    const limits = { id: phone.id, accountId: phone.accountId, ...locked };
    const slots = countedSims(locked.simCards);
    const gate = slots
      ? await simGate(tx, phone, limits, slots, now, counts)
      : await phoneGate(tx, phone, limits, now, counts);
    if ('retryInMs' in gate) return { claimed: [], retryInMs: gate.retryInMs };
    const { pacing, slotRoom } = gate;
    // Outside the send window (quiet hours) only the high-priority lane is handed out.
    // The phone's group as read with the lock: one moved since its connection began reads its new one's.
    const { send_window: window } =
      locked.groupId === phone.groupId ? sending : await effectiveSending(tx, phone.accountId, locked.groupId);
    const opensInMs = msUntilOpen(window, now);
    const due = and(
      opensInMs > 0 ? eq(messages.priority, 'high') : undefined,
      eq(messages.accountId, phone.accountId),
      eq(messages.phoneId, phone.id),
      eq(messages.status, 'queued'),
      lte(messages.sendAt, now),
      // An overdue message waits for the expiry sweep instead of going out late.
      or(isNull(messages.expiresAt), gt(messages.expiresAt, now)),
    );
    const redeliverBefore = new Date(now.getTime() - config.claimRedeliverAfterSeconds * 1000);
    const unreported = tx
      .select({ id: messages.id })
      .from(messages)
      .where(
        and(
          handedOutTo(phone),
          lte(messages.updatedAt, redeliverBefore),
          or(isNull(messages.expiresAt), gt(messages.expiresAt, now)),
        ),
      )
      .orderBy(asc(messages.updatedAt))
      .limit(limit)
      .for('update', { skipLocked: true });
    const pickOrder = [
      // 'high' sorts before 'normal': the priority lane first, then oldest (or newest) first.
      asc(messages.priority),
      ...(order === 'oldest'
        ? [asc(messages.sendAt), asc(messages.createdAt)]
        : [desc(messages.sendAt), desc(messages.createdAt)]),
    ];
    // At most this many are picked; the statement hands out as many of them, in order, as the
    // redeliveries leave room for (`limit` in all).
    const room = Math.min(limit, pacing.allowance);
    const picked = slotRoom
      ? sql`select id from unnest(${`{${withinSlotRoom(
          await tx
            .select({ id: messages.id, sim: messages.sim })
            .from(messages)
            .where(and(due, slotOpen(slotRoom)))
            .orderBy(...pickOrder)
            .limit(room)
            .for('update', { skipLocked: true }),
          slotRoom,
        ).join(',')}}`}::uuid[]) with ordinality as t(id, ord) order by ord`
      : tx
          .select({ id: messages.id })
          .from(messages)
          .where(due)
          .orderBy(...pickOrder)
          .limit(room)
          .for('update', { skipLocked: true });
    // One statement (one round trip): the redeliveries, whose hand-out time alone moves (so each
    // waits its full time before the next), the new hand-outs and their history rows (`dispatched`
    // asks for nothing else before the commit).
    const handingOut = queryRows<Record<string, unknown>>(
      tx,
      sql`
        with redelivered as (
          ${tx
            .update(messages)
            .set({ updatedAt: now })
            .where(and(eq(messages.accountId, phone.accountId), idIn(unreported), eq(messages.status, 'dispatched')))
            .returning()
            .getSQL()}
        ),
        picked as (${picked}),
        claimed as (
          ${tx
            .update(messages)
            .set({ status: 'dispatched', heldReason: null, updatedAt: now })
            .where(
              and(
                eq(messages.accountId, phone.accountId),
                idIn(
                  sql`select id from picked limit greatest(0, ${limit}::int - (select count(*) from redelivered)::int)`,
                ),
                inArray(messages.status, sourcesOf('dispatched')),
              ),
            )
            .returning()
            .getSQL()}
        ),
        history as (${historyRowsSql('claimed', now)})
        select true as redelivered, ${messageColumns('redelivered')} from redelivered
        union all
        select false, ${messageColumns('claimed')} from claimed
      `,
    );
    // Asked for, the phone's messages to drop go with it, in the same round trip.
    const [rows, cancelling] = await Promise.all([
      handingOut,
      cancels ? awaitingCancel(tx, phone, { limit: CANCEL_LIST_MAX }) : undefined,
    ]);
    const cancel = cancelling?.map((row) => row.id);
    const redelivered = rows.filter((row) => row.redelivered === true).map(messageRowOf);
    const claimed = rows.filter((row) => row.redelivered !== true).map(messageRowOf);
    if (claimed.length === 0) {
      if (redelivered.length > 0) return { claimed: redelivered, cancel };
      const nextDue = await nextDueInMs(tx, phone, now);
      return { claimed, retryInMs: earliest(nextDue, opensInMs > 0 ? opensInMs : undefined) };
    }
    await afterTransition(tx, claimed, { at: now, historyWritten: true });
    const direction = order === 'oldest' ? 1 : -1;
    claimed.sort(
      (a, b) =>
        a.priority.localeCompare(b.priority) ||
        direction * (a.sendAt.getTime() - b.sendAt.getTime() || a.createdAt.getTime() - b.createdAt.getTime()),
    );
    return { claimed: [...redelivered, ...claimed], cancel };
  });
}

type PhoneLimits = PacingLimits & { id: string; accountId: string };

/**
 * What the claim may hand out now: `pacing.allowance` messages in all and, on a phone with several
 * SIMs, at most `slotRoom` of each slot's (the slots absent are held); or nothing before `retryInMs`.
 */
type Gate = { pacing: Pacing; slotRoom?: SlotRoom } | { retryInMs: number | undefined };

/** Allowance per SIM slot counted apart (`quotaSimOf`), and the phone's counted slots. */
type SlotRoom = { slots: number[]; room: Map<number, number> };

/** The gate of a phone counted as one SIM: its pacing, its caps holding all its messages. */
async function phoneGate(
  tx: Executor,
  phone: AccountPhone,
  limits: PhoneLimits,
  now: Date,
  counts: Map<string, DispatchCounts>,
): Promise<Gate> {
  const pacing = pacingFrom(limits, counts.get(phone.id) ?? NONE, now);
  if (pacing.allowance > 0) return { pacing };
  if (pacing.heldBy) await markHeld(tx, phone, now, pacing.heldBy);
  return { retryInMs: pacing.refillInMs };
}

/**
 * The gate of a phone with several SIMs: its pace per minute and jitter for all, and the hourly and
 * daily caps per SIM, a used-up one holding only that SIM's messages (lib/messages/quota.ts).
 */
async function simGate(
  tx: Executor,
  phone: AccountPhone,
  limits: PhoneLimits,
  slots: number[],
  now: Date,
  counts: Map<string, DispatchCounts>,
): Promise<Gate> {
  const { phone: pacing, sims } = await simPacingOf(tx, limits, slots, now, counts);
  const room = new Map<number, number>();
  const refills: Array<number | undefined> = [];
  for (const [slot, simPacing] of sims) {
    if (simPacing.allowance > 0) {
      room.set(slot, simPacing.allowance);
      continue;
    }
    refills.push(simPacing.refillInMs);
    if (simPacing.heldBy) await markHeld(tx, phone, now, simPacing.heldBy, inSlot(slots, slot));
  }
  if (pacing.allowance === 0) return { retryInMs: pacing.refillInMs };
  if (room.size === 0) return { retryInMs: earliest(...refills) };
  return { pacing, slotRoom: { slots, room } };
}

/** The messages that count for SIM `slot` of a phone whose counted slots are `slots` (`quotaSimOf`). */
function inSlot(slots: number[], slot: number): SQL {
  return slot === slots[0] ? (or(isNull(messages.sim), eq(messages.sim, slot)) ?? sql`false`) : eq(messages.sim, slot);
}

/** The messages of the slots that have room (or of a slot not counted at all: a stale `sim`). */
function slotOpen(slotRoom: SlotRoom): SQL {
  const held = slotRoom.slots.filter((slot) => !slotRoom.room.has(slot));
  if (held.length === 0) return sql`true`;
  return and(...held.map((slot) => not(inSlot(slotRoom.slots, slot)))) ?? sql`true`;
}

/** The ids of `rows` (oldest first) that fit their slot's room. */
function withinSlotRoom(rows: Array<{ id: string; sim: number | null }>, slotRoom: SlotRoom): string[] {
  const left = new Map(slotRoom.room);
  return rows.flatMap((row) => {
    const slot = quotaSimOf(row.sim, slotRoom.slots);
    const room = left.get(slot) ?? Number.POSITIVE_INFINITY;
    if (room <= 0) return [];
    left.set(slot, room - 1);
    return [row.id];
  });
}

/**
 * Marks the phone's due queued messages (of one SIM: `only`) as held by a used-up cap
 * (`held_reason`), once: a message marked already is left alone. The claim that hands a message
 * out clears its mark.
 */
async function markHeld(tx: Executor, phone: AccountPhone, now: Date, reason: HeldReason, only?: SQL): Promise<void> {
  await tx
    .update(messages)
    .set({ heldReason: reason })
    .where(
      and(
        eq(messages.accountId, phone.accountId),
        eq(messages.phoneId, phone.id),
        eq(messages.status, 'queued'),
        lte(messages.sendAt, now),
        or(isNull(messages.heldReason), ne(messages.heldReason, reason)),
        only,
      ),
    );
}

function earliest(...delays: Array<number | undefined>): number | undefined {
  const known = delays.filter((delay): delay is number => delay !== undefined);
  return known.length > 0 ? Math.min(...known) : undefined;
}

/** Time until the phone's next scheduled message falls due, if one does. */
async function nextDueInMs(tx: Executor, phone: AccountPhone, now: Date): Promise<number | undefined> {
  const [next] = await tx
    .select({ sendAt: min(messages.sendAt) })
    .from(messages)
    .where(
      and(
        eq(messages.accountId, phone.accountId),
        eq(messages.phoneId, phone.id),
        eq(messages.status, 'queued'),
        gt(messages.sendAt, now),
      ),
    );
  return next?.sendAt ? Math.max(1, next.sendAt.getTime() - now.getTime()) : undefined;
}
