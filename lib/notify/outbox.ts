import { type SQL, sql } from 'drizzle-orm';
import { type Driver, type Executor, getDatabase } from '@/db';

/**
 * Wake-ups for long-polling claimers. A send runs `pg_notify` inside its transaction, so the
 * notification goes out when (and only if) it commits; both drivers deliver it (PGlite in
 * process, Postgres over one shared LISTEN connection per process, so every app instance hears
 * every send). Waiters are kept per phone id.
 */
const CHANNEL = 'simgate_outbox';

type Listener = { client: Driver['client']; ready: Promise<void> };
type NotifyState = { listener?: Listener; waiters: Map<string, Set<() => void>> };

// Shared by every bundle Next evaluates in this process: one LISTEN, one waiter table.
const globalForNotify = globalThis as typeof globalThis & { __simgateOutboxNotify?: NotifyState };
globalForNotify.__simgateOutboxNotify ??= { waiters: new Map() };
const state: NotifyState = globalForNotify.__simgateOutboxNotify;

/** Call inside the transaction that makes messages of this phone claimable. */
export async function notifyOutbox(tx: Executor, phoneId: string): Promise<void> {
  await tx.execute(sql`select ${outboxNotification(sql`${phoneId}`)}`);
}

/**
 * The `pg_notify` call of `notifyOutbox` as an expression, for a statement that makes messages
 * claimable. Cast to text: Citus runs a data-modifying CTE's readers as subplans whose columns it
 * stores, and a `void` column cannot be stored.
 */
export function outboxNotification(phoneId: SQL): SQL {
  return sql`(pg_notify(${CHANNEL}, (${phoneId})::text))::text`;
}

function wake(phoneId: string): void {
  const waiters = state.waiters.get(phoneId);
  if (!waiters) return;
  state.waiters.delete(phoneId);
  for (const resolve of waiters) resolve();
}

/**
 * Wakes every waiting claim and every open stream of this process once: they look for work and
 * find it or not. Called whenever the LISTEN connection (re)connects, since a send that committed
 * while it was down notified no one here.
 */
export function wakeEveryone(): void {
  const all = [...state.waiters.values()];
  state.waiters.clear();
  for (const waiters of all) for (const resolve of waiters) resolve();
}

/**
 * How often an open stream looks for work without a wake-up: the safety net under LISTEN/NOTIFY,
 * and how a stream hears of a scheduled message falling due or of pacing freeing room.
 */
export const STREAM_RECHECK_MS = 30_000;

async function ensureListening(): Promise<void> {
  const { driver } = await getDatabase();
  // Tests swap databases: a listener on a closed client is replaced.
  if (state.listener?.client === driver.client) return state.listener.ready;
  // postgres-js listens again by itself after the connection drops, then calls `onlisten`; PGlite
  // runs in this process and never drops it (its third argument is a transaction, not a callback).
  const listening =
    driver.kind === 'postgres'
      ? driver.client.listen(CHANNEL, wake, wakeEveryone)
      : driver.client.listen(CHANNEL, wake);
  const ready = Promise.resolve(listening).then(() => undefined);
  const listener: Listener = { client: driver.client, ready };
  state.listener = listener;
  ready.catch(() => {
    if (state.listener === listener) state.listener = undefined;
  });
  return ready;
}

export type OutboxSubscription = {
  /** Resolves on a wake-up for the phone, after `timeoutMs`, or when `signal` aborts. */
  wait: (timeoutMs: number, signal?: AbortSignal) => Promise<void>;
  /** Whether a wake-up for the phone came (a send or a cancel committed, or LISTEN reconnected). */
  woken: () => boolean;
  /** Resolves on the first wake-up for the phone (never, if none comes before `cancel`). */
  wake: Promise<void>;
  cancel: () => void;
};

/**
 * Subscribe BEFORE looking for messages: a send that commits between the look and the wait
 * still wakes the waiter.
 */
export async function subscribeOutbox(phoneId: string): Promise<OutboxSubscription> {
  await ensureListening();
  let woken = false;
  let onWake: () => void = () => {};
  let wakeResolve: () => void = () => {};
  const wake = new Promise<void>((resolve) => {
    wakeResolve = resolve;
  });
  const resolveWake = () => {
    woken = true;
    wakeResolve();
    onWake();
  };
  let waiters = state.waiters.get(phoneId);
  if (!waiters) {
    waiters = new Set();
    state.waiters.set(phoneId, waiters);
  }
  waiters.add(resolveWake);
  const cancel = () => {
    const current = state.waiters.get(phoneId);
    current?.delete(resolveWake);
    if (current?.size === 0) state.waiters.delete(phoneId);
  };
  const wait = (timeoutMs: number, signal?: AbortSignal) =>
    new Promise<void>((resolve) => {
      if (woken || signal?.aborted || timeoutMs <= 0) return resolve();
      const finish = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', finish);
        onWake = () => {};
        resolve();
      };
      const timer = setTimeout(finish, timeoutMs);
      timer.unref?.();
      signal?.addEventListener('abort', finish, { once: true });
      onWake = finish;
    });
  return { wait, woken: () => woken, wake, cancel };
}

/** Claims of this phone waiting in this process right now. */
export function waitingClaims(phoneId: string): number {
  return state.waiters.get(phoneId)?.size ?? 0;
}

/**
 * Calls `onWake` on every wake-up of the phone until the returned function is called: for a
 * stream that stays open (the SMSGate app's SSE). It re-subscribes inside the wake-up itself, so
 * no send committing between two wake-ups goes unheard. Every STREAM_RECHECK_MS besides, it calls
 * `onRecheck`: a look of the stream's own, which may first see whether there is anything to tell.
 */
export async function watchOutbox(phoneId: string, onWake: () => void, onRecheck: () => void): Promise<() => void> {
  await ensureListening();
  let active = true;
  const fire = () => {
    subscribe();
    onWake();
  };
  const subscribe = () => {
    if (!active) return;
    let waiters = state.waiters.get(phoneId);
    if (!waiters) {
      waiters = new Set();
      state.waiters.set(phoneId, waiters);
    }
    waiters.add(fire);
  };
  subscribe();
  // A wake-up lost anyway (a NOTIFY between a drop and postgres-js noticing it) waits this long at most.
  const recheck = setInterval(onRecheck, STREAM_RECHECK_MS);
  recheck.unref?.();
  return () => {
    active = false;
    clearInterval(recheck);
    const current = state.waiters.get(phoneId);
    current?.delete(fire);
    if (current?.size === 0) state.waiters.delete(phoneId);
  };
}
