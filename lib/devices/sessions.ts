import { randomUUID } from 'node:crypto';
import { and, eq, inArray } from 'drizzle-orm';
import { type Executor, getDb } from '@/db';
import { devices, phones } from '@/db/schema';
import { onKeysChanged } from '@/lib/auth/key-lookup';
import type { DevicePrincipal } from '@/lib/auth/principal';
import { batcher } from '@/lib/batch';
import { config } from '@/lib/config';
import { DomainError, rateLimited } from '@/lib/errors';
import { log } from '@/lib/log';
import { announceStream, listenForStreams } from './stream-announcements';

/**
 * Event streams one device may hold open, across instances: one more closes its oldest. In one
 * instance at once; across instances as soon as the new stream's announcement is heard
 * (`heardStreamOpened`).
 */
export const MAX_STREAMS_PER_DEVICE = 2;

/** What a refused stream's Retry-After says: the SMSGate app's middle reconnect delay. */
export const STREAM_CAP_RETRY_AFTER_S = 30;

/** Waiting claims (long-polls) one device may hold open in an instance: one more answers its oldest at once. */
export const MAX_WAITING_CLAIMS_PER_DEVICE = 2;

/** What a refused waiting claim's Retry-After says. */
export const WAITING_CLAIM_RETRY_AFTER_S = 10;

export type SessionKind = 'stream' | 'poll';

/**
 * A device's open stream or long-poll in this process. Its `signal` aborts when it must end: the
 * device's key was revoked or its phone removed (`revoked`), or a newer session of the same kind of
 * the device took its place (`replaced`). `release` takes it off the books; call it once it has ended.
 */
export type DeviceSession = {
  signal: AbortSignal;
  /** Why the signal aborted, once it has. */
  reason: () => 'revoked' | 'replaced' | undefined;
  /** Whether another stream of the device is open here (its presence is already kept). */
  hasSibling: () => boolean;
  /** A stream's writer of SSE events (`pushToDevice` reaches the device through it). */
  setPush: (push: (name: string, data: string) => void) => void;
  release: () => void;
};

type Entry = {
  /** A stream's id in the announcements every instance hears. */
  streamId?: string;
  /** Streams of the device announced after this one, once this one's own announcement was heard. */
  newer?: number;
  deviceId: string;
  accountId: string | null;
  kind: SessionKind;
  controller: AbortController;
  reason?: 'revoked' | 'replaced';
  push?: (name: string, data: string) => void;
};

/** Open sessions of one kind in this process: in all, and by account. */
type Tally = { all: number; byAccount: Map<string, number> };

type Registry = { byDevice: Map<string, Entry[]>; open: Record<SessionKind, Tally> };

const tally = (): Tally => ({ all: 0, byAccount: new Map() });

// Shared by every bundle Next evaluates in this process.
const globalForSessions = globalThis as typeof globalThis & { __simgateDeviceSessions?: Registry };
globalForSessions.__simgateDeviceSessions ??= { byDevice: new Map(), open: { stream: tally(), poll: tally() } };
const registry = globalForSessions.__simgateDeviceSessions;

/**
 * The caps of each kind: per device (one more ends the device's oldest of that kind), per account
 * (429) and per instance (503), both with Retry-After.
 */
const CAPS: Record<
  SessionKind,
  { perDevice: number; perAccount: () => number; perInstance: () => number; retryAfterS: number; what: string }
> = {
  stream: {
    perDevice: MAX_STREAMS_PER_DEVICE,
    perAccount: () => config.sseStreamsPerAccount,
    perInstance: () => config.sseStreamsPerInstance,
    retryAfterS: STREAM_CAP_RETRY_AFTER_S,
    what: 'event streams',
  },
  poll: {
    perDevice: MAX_WAITING_CLAIMS_PER_DEVICE,
    perAccount: () => config.waitingClaimsPerAccount,
    perInstance: () => config.waitingClaimsPerInstance,
    retryAfterS: WAITING_CLAIM_RETRY_AFTER_S,
    what: 'waiting claims',
  },
};

function end(entry: Entry, reason: 'revoked' | 'replaced'): void {
  if (entry.controller.signal.aborted) return;
  entry.reason = reason;
  entry.controller.abort();
}

function count(entry: Pick<Entry, 'kind' | 'accountId'>, by: 1 | -1): void {
  const open = registry.open[entry.kind];
  open.all += by;
  if (!entry.accountId) return;
  const left = (open.byAccount.get(entry.accountId) ?? 0) + by;
  if (left > 0) open.byAccount.set(entry.accountId, left);
  else open.byAccount.delete(entry.accountId);
}

function remove(entry: Entry): void {
  const list = registry.byDevice.get(entry.deviceId);
  const index = list?.indexOf(entry) ?? -1;
  if (!list || index < 0) return;
  list.splice(index, 1);
  if (list.length === 0) registry.byDevice.delete(entry.deviceId);
  count(entry, -1);
}

/** The caps a new session must fit under, checked before any database work; throws the answer. */
function admit(device: DevicePrincipal, kind: SessionKind, own: Entry[]): void {
  const caps = CAPS[kind];
  // A session that replaces one of the device's own takes no new room.
  const replacing = own.filter((entry) => entry.kind === kind).length >= caps.perDevice;
  if (replacing) return;
  const perInstance = caps.perInstance();
  if (registry.open[kind].all >= perInstance) {
    throw new DomainError(
      'SERVICE_UNAVAILABLE',
      `This server holds its most ${caps.what} (${perInstance}). Try again later.`,
      {
        headers: { 'Retry-After': String(caps.retryAfterS) },
        extra: { retry_after: caps.retryAfterS },
      },
    );
  }
  const perAccount = caps.perAccount();
  if (device.accountId && (registry.open[kind].byAccount.get(device.accountId) ?? 0) >= perAccount) {
    throw rateLimited(caps.retryAfterS, `Too many open ${caps.what} in this account: at most ${perAccount}.`);
  }
}

/**
 * Opens a session of the device in this process's books. It first passes the instance's and the
 * account's caps of its kind (503 / 429 with Retry-After) and then ends the device's oldest
 * sessions of its kind beyond the device's cap less one (a replaced stream closes; a replaced
 * waiting claim answers at once with what it has, usually nothing). Synchronous, so concurrent
 * opens cannot all pass a cap. Every session ends when the device's key is revoked or its phone
 * removed, in any instance (`watchRevocations` must be listening; `openDeviceSession` starts it).
 */
export async function openDeviceSession(device: DevicePrincipal, kind: SessionKind): Promise<DeviceSession> {
  await watchRevocations();
  if (kind === 'stream') await listenForStreams(heardStreamOpened);
  const own = registry.byDevice.get(device.deviceId) ?? [];
  admit(device, kind, own);
  const same = own.filter((entry) => entry.kind === kind);
  for (const oldest of same.slice(0, Math.max(0, same.length - CAPS[kind].perDevice + 1))) {
    end(oldest, 'replaced');
    remove(oldest);
  }
  const entry: Entry = {
    deviceId: device.deviceId,
    accountId: device.accountId,
    kind,
    controller: new AbortController(),
    streamId: kind === 'stream' ? randomUUID() : undefined,
  };
  const list = registry.byDevice.get(device.deviceId) ?? [];
  list.push(entry);
  registry.byDevice.set(device.deviceId, list);
  count(entry, 1);
  if (entry.streamId) {
    await announceStream(device.deviceId, entry.streamId).catch((error: unknown) => {
      log.warn({ err: error, deviceId: device.deviceId }, 'could not announce an event stream to other instances');
    });
  }
  return {
    signal: entry.controller.signal,
    reason: () => entry.reason,
    hasSibling: () =>
      (registry.byDevice.get(device.deviceId) ?? []).some((other) => other !== entry && other.kind === 'stream'),
    setPush: (push) => {
      entry.push = push;
    },
    release: () => remove(entry),
  };
}

/**
 * One instance (this one too) announced that `deviceId` opened the stream `streamId`. Every instance
 * hears the announcements in the same order, so each closes its own streams of the device that
 * MAX_STREAMS_PER_DEVICE newer ones have followed: the newest streams opened anywhere stay, and
 * together they are at most the cap. A stream counts the announcements after its own only; until
 * its own is heard it is newer than every one heard so far. An instance that cannot hear them (its
 * LISTEN is down) keeps the cap within itself.
 */
function heardStreamOpened(deviceId: string, streamId: string): void {
  for (const entry of [...(registry.byDevice.get(deviceId) ?? [])]) {
    if (entry.kind !== 'stream') continue;
    if (entry.streamId === streamId) {
      entry.newer = 0;
      continue;
    }
    if (entry.newer === undefined) continue;
    entry.newer++;
    if (entry.newer >= MAX_STREAMS_PER_DEVICE) {
      end(entry, 'replaced');
      remove(entry);
    }
  }
}

/** Whether the device holds an event stream open in this process. */
export function hasOpenStream(deviceId: string): boolean {
  return (registry.byDevice.get(deviceId) ?? []).some(
    (entry) => entry.kind === 'stream' && entry.push !== undefined && !entry.controller.signal.aborted,
  );
}

/**
 * Sends one SSE event (`event: <name>`, `data: <data>`) on every open event stream of the device
 * in this process; answers how many streams took it (0: the device has no stream open here).
 */
export function pushToDevice(deviceId: string, name: string, data: string): number {
  let sent = 0;
  for (const entry of registry.byDevice.get(deviceId) ?? []) {
    if (entry.kind !== 'stream' || !entry.push || entry.controller.signal.aborted) continue;
    entry.push(name, data);
    sent++;
  }
  return sent;
}

/** Open sessions of a kind in this process, in all and of one account (for tests and health). */
export function openSessions(kind: SessionKind, accountId?: string): number {
  const open = registry.open[kind];
  return accountId ? (open.byAccount.get(accountId) ?? 0) : open.all;
}

/** Open streams in this process, in all and of one account (for tests and health). */
export function openStreams(accountId?: string): number {
  return openSessions('stream', accountId);
}

/** This process's open sessions by kind (`simgate_device_connections`). */
export function openSessionsByKind(): Record<SessionKind, number> {
  return { stream: registry.open.stream.all, poll: registry.open.poll.all };
}

/**
 * The given devices that may still speak for a phone: activated, and the current device of their
 * number's phone in their account (every revocation path and a phone's removal break this).
 */
export async function liveDevices(executor: Executor, deviceIds: string[]): Promise<Set<string>> {
  if (deviceIds.length === 0) return new Set();
  const rows = await executor
    .select({ id: devices.id })
    .from(devices)
    .innerJoin(
      phones,
      and(
        eq(phones.deviceId, devices.id),
        eq(phones.accountId, devices.accountId),
        eq(phones.phone, devices.phoneNumber),
      ),
    )
    .where(and(inArray(devices.id, deviceIds), eq(devices.status, 'activated')));
  return new Set(rows.map((row) => row.id));
}

const liveChecks = new WeakMap<Executor, (deviceId: string) => Promise<boolean>>();

/**
 * How long the work of an open stream's presence tick (its device check, then its presence write)
 * waits for other streams' ticks before its statement goes: nobody waits on it, and an idle fleet's
 * ticks come at random moments, each alone under natural batching (two statements a tick).
 */
export const STREAM_TICK_GATHER_MS = 250;

/**
 * Whether one device may still speak for its phone (`liveDevices`), asked by an open stream's tick:
 * the checks of the next STREAM_TICK_GATHER_MS go as one statement.
 */
export function isLiveDevice(executor: Executor, deviceId: string): Promise<boolean> {
  let check = liveChecks.get(executor);
  if (!check) {
    check = batcher<string, boolean>({
      inFlight: 1,
      max: 1000,
      windowMs: STREAM_TICK_GATHER_MS,
      run: async (ids) => {
        const live = await liveDevices(executor, [...new Set(ids)]);
        return ids.map((id) => live.has(id));
      },
    });
    liveChecks.set(executor, check);
  }
  return check(deviceId);
}

/** Ends every session of a device that can no longer speak for a phone. One query for all of this process's devices. */
export async function recheckSessions(executor: Executor): Promise<void> {
  const ids = [...registry.byDevice.keys()];
  if (ids.length === 0) return;
  const live = await liveDevices(executor, ids);
  for (const id of ids) {
    if (live.has(id)) continue;
    for (const entry of [...(registry.byDevice.get(id) ?? [])]) end(entry, 'revoked');
  }
}

type Watch = { running: boolean; again: boolean; ready?: Promise<void> };
const globalForWatch = globalThis as typeof globalThis & { __simgateSessionWatch?: Watch };
globalForWatch.__simgateSessionWatch ??= { running: false, again: false };
const watch = globalForWatch.__simgateSessionWatch;

/** A burst of key changes runs one re-check at a time, and one more after it if any came meanwhile. */
function onKeyChange(): void {
  if (registry.byDevice.size === 0) return;
  if (watch.running) {
    watch.again = true;
    return;
  }
  watch.running = true;
  void (async () => {
    try {
      do {
        watch.again = false;
        await recheckSessions(await getDb());
      } while (watch.again);
    } catch (error) {
      log.warn({ err: error }, 'could not re-check open device sessions');
    } finally {
      watch.running = false;
    }
  })();
}

/** Listens for key revocations (every instance's, by NOTIFY on commit) on behalf of open sessions. */
export function watchRevocations(): Promise<void> {
  return onKeysChanged(onKeyChange);
}
