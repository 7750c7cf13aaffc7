import { and, inArray, isNull, lt, ne, or, sql } from 'drizzle-orm';
import { LRUCache } from 'lru-cache';
import type { Database, Executor } from '@/db';
import { isDistributed } from '@/db/distributed';
import { apiKeys, devices } from '@/db/schema';
import { batcher } from '@/lib/batch';
import { config } from '@/lib/config';
import { log } from '@/lib/log';
import { listenTo, notifyOnCommit } from '@/lib/notify/channel';
import { SQLSTATE, sqlState } from '@/lib/transactions';
import { hashSecret, isPlausibleKey, keyKindOf } from './keys';
import type { AccountPrincipal, DevicePrincipal } from './principal';

type CacheEntry = { principal: AccountPrincipal | DevicePrincipal | null };

// A short-lived cache in front of the hash lookup: most requests of a busy integrator skip the
// database. Revocations and activations clear it at once in the process that made them and, by
// NOTIFY on commit (keysChanged), in every other instance within moments; KEY_CACHE_TTL_MS bounds
// what a lost notification could leave. Bounded, least recently used first.
/** Keys remembered per process: every phone of a large instance (ten thousand and more) and its accounts' keys. */
const MAX_CACHE_ENTRIES = 100_000;
const cache = new LRUCache<string, CacheEntry>({ max: MAX_CACHE_ENTRIES });
const KEYS_CHANNEL = 'simgate_keys';

/** Caches of what a key led to, forgotten with the keys (`alongsideKeyCache`). */
const alongside = new Set<() => void>();

/** How many times this process has forgotten its cached keys (`clearKeyCache`). */
let clears = 0;

export function clearKeyCache(): void {
  clears++;
  cache.clear();
  for (const clear of alongside) clear();
}

/**
 * Changes whenever this process forgets its cached keys. A lookup that began before a revocation
 * cleared the cache may have read the key as it was: taken as it begins and compared when it ends,
 * this says whether what it read may be cached.
 */
export function keyCacheEpoch(): number {
  return clears;
}

/**
 * Calls `clear` whenever this process forgets its cached keys: a revocation or activation made here,
 * or heard from another instance. For a cache of what a key led to (a device's phone), which a
 * removed phone or a device switched away from must not outlive.
 */
export function alongsideKeyCache(clear: () => void): void {
  alongside.add(clear);
}

/** Call inside the transaction that revokes or activates a key: every instance forgets its cached keys on commit. */
export function keysChanged(tx: Executor): Promise<void> {
  return notifyOnCommit(tx, KEYS_CHANNEL);
}

/**
 * Calls `callback` in this process whenever any instance revokes or activates a key (after its
 * transaction commits): for what holds a principal longer than a request, such as open streams.
 */
export function onKeysChanged(callback: () => void): Promise<void> {
  return listenTo(KEYS_CHANNEL, callback);
}

/**
 * How long a patient lookup (`principalForKey`'s `patient`) gathers others before its statement goes.
 * A phone opening its connection (a long-poll, an event stream) is one: what it then waits for is
 * seconds, and a fleet's re-polls come at random moments, each alone under natural batching (240–355
 * statements a second for 10,000 long-polls in `npm run bench`, their keys no longer cached after a
 * 20–25 s wait).
 */
export const PATIENT_LOOKUP_WINDOW_MS = 25;

/**
 * The principal a key stands for, or null when it is unknown, revoked or malformed. A `patient`
 * lookup that misses the cache goes with the others of the next PATIENT_LOOKUP_WINDOW_MS.
 */
export async function principalForKey(
  db: Database,
  key: string,
  { patient = false }: { patient?: boolean } = {},
): Promise<AccountPrincipal | DevicePrincipal | null> {
  if (!isPlausibleKey(key)) return null;
  // Listening before anything is cached: no revocation elsewhere can be missed by this cache.
  await listenTo(KEYS_CHANNEL, clearKeyCache);
  const hash = hashSecret(key);
  const cached = cache.get(hash);
  if (cached) return cached.principal;

  const lookup = lookupsOf(db)[patient ? 'patient' : 'now'];
  const epoch = keyCacheEpoch();
  const principal = await lookup[keyKindOf(key) === 'account' ? 'account' : 'device'](hash);
  const ttl = config.keyCacheTtlMs;
  // A revocation that cleared the cache meanwhile may have come after this lookup's read.
  if (ttl > 0 && keyCacheEpoch() === epoch) cache.set(hash, { principal }, { ttl });
  return principal;
}

type Principal = AccountPrincipal | DevicePrincipal;

/** Key lookups that arrive together (phones reconnecting after a restart) go as one statement per kind. */
const LOOKUP_BATCH_MAX = 500;
type Lookups = {
  account: (hash: string) => Promise<Principal | null>;
  device: (hash: string) => Promise<Principal | null>;
};
/** Each database's lookups: those gathered by the turn of the event loop (`now`), and the patient ones. */
const lookups = new WeakMap<Database, Record<'now' | 'patient', Lookups>>();

function lookupsOf(db: Database): Record<'now' | 'patient', Lookups> {
  let found = lookups.get(db);
  if (!found) {
    const lane = (gathering: { gather: true } | { windowMs: number }): Lookups => ({
      account: batcher({
        inFlight: 2,
        max: LOOKUP_BATCH_MAX,
        ...gathering,
        run: (hashes: string[]) => lookupAccountKeys(db, hashes),
      }),
      device: batcher({
        inFlight: 2,
        max: LOOKUP_BATCH_MAX,
        ...gathering,
        run: (hashes: string[]) => lookupDeviceKeys(db, hashes),
      }),
    });
    found = { now: lane({ gather: true }), patient: lane({ windowMs: PATIENT_LOOKUP_WINDOW_MS }) };
    lookups.set(db, found);
  }
  return found;
}

async function lookupAccountKeys(db: Database, hashes: string[]): Promise<Array<AccountPrincipal | null>> {
  const rows = await db
    .select({ id: apiKeys.id, accountId: apiKeys.accountId, keyHash: apiKeys.keyHash, role: apiKeys.role })
    .from(apiKeys)
    .where(and(inArray(apiKeys.keyHash, hashes), isNull(apiKeys.revokedAt)));
  const byHash = new Map(rows.map((row) => [row.keyHash, row]));
  return hashes.map((hash) => {
    const row = byHash.get(hash);
    if (!row) return null;
    const principal: AccountPrincipal = { kind: 'account', accountId: row.accountId, keyId: row.id, via: 'api_key' };
    if (row.role) principal.role = row.role;
    return principal;
  });
}

async function lookupDeviceKeys(db: Database, hashes: string[]): Promise<Array<DevicePrincipal | null>> {
  const rows = await db
    .select({
      id: devices.id,
      accountId: devices.accountId,
      phoneNumber: devices.phoneNumber,
      status: devices.status,
      keyHash: devices.keyHash,
    })
    .from(devices)
    .where(and(inArray(devices.keyHash, hashes), ne(devices.status, 'revoked')));
  const byHash = new Map(rows.map((row) => [row.keyHash, row]));
  return hashes.map((hash) => {
    const row = byHash.get(hash);
    return row
      ? { kind: 'device', deviceId: row.id, accountId: row.accountId, phoneNumber: row.phoneNumber, status: row.status }
      : null;
  });
}

const LAST_USED_RESOLUTION_MS = 60_000;
/**
 * How long the last uses wait to be written together. Phones re-polling at random points touch their
 * keys a few at a time, each turn of the event loop apart: gathered by the turn, 10,000 of them cost
 * about 170 transactions a second (four statements each); gathered over a quarter second, four.
 */
const LAST_USED_GATHER_MS = 250;
const lastTouched = new LRUCache<string, number>({ max: MAX_CACHE_ENTRIES });

/**
 * Records when a key was last used, at most once a minute per key and off the request's path:
 * the caller does not await it, and a failure is only logged.
 */
export function touchLastUsed(db: Database, principal: AccountPrincipal | DevicePrincipal): void {
  const id = principal.kind === 'account' ? principal.keyId : principal.deviceId;
  if (!id) return;
  const now = Date.now();
  if ((lastTouched.get(id) ?? 0) > now - LAST_USED_RESOLUTION_MS) return;
  lastTouched.set(id, now);
  // Written together with the others of the next LAST_USED_GATHER_MS: one transaction per kind.
  let pending = touches.get(db);
  if (!pending) {
    pending = { account: new Set(), device: new Set(), timer: setTimeout(() => writePending(db), LAST_USED_GATHER_MS) };
    touches.set(db, pending);
  }
  pending[principal.kind].add(id);
}

type Touches = { account: Set<string>; device: Set<string>; timer: ReturnType<typeof setTimeout> };
const touches = new Map<Database, Touches>();
/** The writes under way, in one chain: a gathering's write begins once the one before it has ended. */
let writing: Promise<void> = Promise.resolve();

function writePending(db: Database): void {
  const taken = touches.get(db);
  if (!taken) return;
  clearTimeout(taken.timer);
  touches.delete(db);
  writing = writing.then(() => writeLastUsed(db, taken));
}

/**
 * Writes the last uses gathered so far at once and waits for every write under way: at shutdown, so
 * that none is lost, and between tests, so that none lands on the next test's statements.
 */
export async function flushLastUsed(): Promise<void> {
  for (const db of [...touches.keys()]) writePending(db);
  await writing;
}

/**
 * The longest a last-use write waits for a row or table lock. It is bookkeeping: rather than wait
 * behind a request's transaction (or, on Citus, close a distributed deadlock with one through the
 * reference tables' locks), it gives up, and the key's next use writes it again.
 */
const LAST_USED_LOCK_TIMEOUT = '100ms';

/**
 * The two kinds are written one after the other, and after the gathering before (`writing`), never at
 * once: on Citus, two concurrent updates of reference tables (api_keys, devices) were seen to close a
 * distributed deadlock between themselves. Never rejects: a failure is logged.
 */
async function writeLastUsed(db: Database, { account, device }: Touches): Promise<void> {
  const stale = sql`now() - interval '1 minute'`;
  const distributed = await isDistributed(db).catch(() => false);
  const writes: Array<(tx: Executor) => Promise<unknown>> = [];
  if (account.size > 0) {
    writes.push((tx) =>
      tx
        .update(apiKeys)
        .set({ lastUsedAt: sql`now()` })
        .where(and(inArray(apiKeys.id, [...account]), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, stale)))),
    );
  }
  if (device.size > 0) {
    writes.push((tx) =>
      tx
        .update(devices)
        .set({ lastUsedAt: sql`now()` })
        .where(and(inArray(devices.id, [...device]), or(isNull(devices.lastUsedAt), lt(devices.lastUsedAt, stale)))),
    );
  }
  for (const write of writes) {
    try {
      await withoutWaiting(db, distributed, write);
    } catch (error) {
      const keys = account.size + device.size;
      const state = sqlState(error);
      // A lock it gave up on, or a deadlock Citus broke: the rows were busy; the next use writes it again.
      if (state === SQLSTATE.lockNotAvailable || state === SQLSTATE.deadlockDetected)
        log.debug({ keys }, 'key last use not recorded: its rows were busy');
      else log.warn({ err: error, keys }, 'could not record key last use');
    }
  }
}

/** Runs `write` in a transaction whose lock waits end after LAST_USED_LOCK_TIMEOUT, on the workers too. */
function withoutWaiting(db: Database, distributed: boolean, write: (tx: Executor) => Promise<unknown>): Promise<void> {
  return db.transaction(async (tx) => {
    // SET LOCAL, not set_config(): Citus passes the former on to the workers, where the rows wait.
    if (distributed) await tx.execute(sql`set local citus.propagate_set_commands = 'local'`);
    await tx.execute(sql.raw(`set local lock_timeout = '${LAST_USED_LOCK_TIMEOUT}'`));
    await write(tx);
  });
}
