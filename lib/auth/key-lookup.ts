import { and, eq, isNull, lt, ne, or, sql } from 'drizzle-orm';
import { LRUCache } from 'lru-cache';
import type { Database, Executor } from '@/db';
import { apiKeys, devices } from '@/db/schema';
import { config } from '@/lib/config';
import { log } from '@/lib/log';
import { listenTo, notifyOnCommit } from '@/lib/notify/channel';
import { hashSecret, isPlausibleKey, keyKindOf } from './keys';
import type { AccountPrincipal, DevicePrincipal } from './principal';

type CacheEntry = { principal: AccountPrincipal | DevicePrincipal | null };

// A short-lived cache in front of the hash lookup: most requests of a busy integrator skip the
// database. Revocations and activations clear it at once in the process that made them and, by
// NOTIFY on commit (keysChanged), in every other instance within moments; KEY_CACHE_TTL_MS bounds
// what a lost notification could leave. Bounded, least recently used first.
const MAX_CACHE_ENTRIES = 10_000;
const cache = new LRUCache<string, CacheEntry>({ max: MAX_CACHE_ENTRIES });
const KEYS_CHANNEL = 'simgate_keys';

export function clearKeyCache(): void {
  cache.clear();
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

/** The principal a key stands for, or null when it is unknown, revoked or malformed. */
export async function principalForKey(db: Database, key: string): Promise<AccountPrincipal | DevicePrincipal | null> {
  if (!isPlausibleKey(key)) return null;
  // Listening before anything is cached: no revocation elsewhere can be missed by this cache.
  await listenTo(KEYS_CHANNEL, clearKeyCache);
  const hash = hashSecret(key);
  const cached = cache.get(hash);
  if (cached) return cached.principal;

  const principal = keyKindOf(key) === 'account' ? await lookupAccountKey(db, hash) : await lookupDeviceKey(db, hash);
  const ttl = config.keyCacheTtlMs;
  if (ttl > 0) cache.set(hash, { principal }, { ttl });
  return principal;
}

async function lookupAccountKey(db: Database, hash: string): Promise<AccountPrincipal | null> {
  const [row] = await db
    .select({ id: apiKeys.id, accountId: apiKeys.accountId })
    .from(apiKeys)
    .where(and(eq(apiKeys.keyHash, hash), isNull(apiKeys.revokedAt)))
    .limit(1);
  return row ? { kind: 'account', accountId: row.accountId, keyId: row.id, via: 'api_key' } : null;
}

async function lookupDeviceKey(db: Database, hash: string): Promise<DevicePrincipal | null> {
  const [row] = await db
    .select({
      id: devices.id,
      accountId: devices.accountId,
      phoneNumber: devices.phoneNumber,
      status: devices.status,
    })
    .from(devices)
    .where(and(eq(devices.keyHash, hash), ne(devices.status, 'revoked')))
    .limit(1);
  return row
    ? { kind: 'device', deviceId: row.id, accountId: row.accountId, phoneNumber: row.phoneNumber, status: row.status }
    : null;
}

const LAST_USED_RESOLUTION_MS = 60_000;
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
  const stale = sql`now() - interval '1 minute'`;
  const write =
    principal.kind === 'account'
      ? db
          .update(apiKeys)
          .set({ lastUsedAt: sql`now()` })
          .where(and(eq(apiKeys.id, id), or(isNull(apiKeys.lastUsedAt), lt(apiKeys.lastUsedAt, stale))))
      : db
          .update(devices)
          .set({ lastUsedAt: sql`now()` })
          .where(and(eq(devices.id, id), or(isNull(devices.lastUsedAt), lt(devices.lastUsedAt, stale))));
  setImmediate(() => {
    write.then(
      () => {},
      (error: unknown) => log.warn({ err: error, keyId: id }, 'could not record key last use'),
    );
  });
}
