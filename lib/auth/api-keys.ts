import { and, eq, getTableColumns, isNull, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { apiKeys, devices, type MemberRole, members, phones } from '@/db/schema';
import { recordAudit } from '@/lib/audit/record';
import { DomainError, notFound } from '@/lib/errors';
import { ranksAtLeast } from '@/lib/members/roles';
import { keysetPage, type PageQuery, toPage } from '@/lib/pagination';
import { withTransaction } from '@/lib/transactions';
import { iso } from '@/lib/wire';
import { clearKeyCache, keysChanged } from './key-lookup';
import { generateKey } from './keys';
import type { Principal } from './principal';

type ApiKeyRow = typeof apiKeys.$inferSelect & { createdBy: string | null };

export function presentApiKey(row: ApiKeyRow) {
  return {
    id: row.id,
    name: row.name,
    prefix: row.prefix,
    created_at: iso(row.createdAt) ?? '',
    last_used_at: iso(row.lastUsedAt),
    revoked_at: iso(row.revokedAt),
    role: row.role,
    created_by: row.createdBy,
  };
}

/**
 * The role a new key gets: the one asked for, at or below the caller's own (a member or a key with a
 * role cannot make a key that may do more); without one, an owner's or admin's key (and a device's or
 * an unbounded key's) may do everything, anyone else's gets their role.
 */
function keyRoleFor(principal: Principal, asked: MemberRole | null | undefined): MemberRole | null {
  const own = principal.kind === 'account' ? principal.role : undefined;
  if (asked === undefined) return own && own !== 'owner' && own !== 'admin' ? own : null;
  if (!own) return asked;
  if (asked === null ? own !== 'owner' && own !== 'admin' : !ranksAtLeast(own, asked)) {
    throw new DomainError(
      'FORBIDDEN',
      `Your role (${own}) may create keys of that role or below only; ask for ${own === 'viewer' ? 'viewer' : `${own} or below`}.`,
    );
  }
  return asked;
}

/**
 * The account a principal may create keys for: an account credential's, or an activated device's
 * that still sends for a phone of its account (a device of a removed or re-paired phone is done).
 * A device's state is read afresh, not from the key cache, so an activation or revocation made on
 * another instance a moment ago counts at once.
 */
async function keyOwner(
  executor: Executor,
  principal: Principal,
): Promise<{ accountId: string; deviceId: string | null }> {
  if (principal.kind === 'account') return { accountId: principal.accountId, deviceId: null };
  const [device] = await executor
    .select({ status: devices.status, accountId: devices.accountId })
    .from(devices)
    .where(eq(devices.id, principal.deviceId));
  if (device?.status === 'revoked') throw new DomainError('UNAUTHENTICATED', 'This device key has been revoked.');
  if (device?.status !== 'activated' || !device.accountId) {
    throw new DomainError(
      'DEVICE_NOT_ACTIVATED',
      'Bind an email to this device first (POST /api/v1/auth/bind/request-code, then /bind/confirm).',
    );
  }
  // Then its phone, by the account just read: on a database sharded by account, one shard.
  const [phone] = await executor
    .select({ id: phones.id })
    .from(phones)
    .where(and(eq(phones.accountId, device.accountId), eq(phones.deviceId, principal.deviceId)));
  if (!phone) {
    throw new DomainError('UNAUTHENTICATED', 'This device no longer sends for a phone of its account.');
  }
  return { accountId: device.accountId, deviceId: principal.deviceId };
}

/** Step 4 of activation, and the settings panel's "new key": an `sk_…` key, shown this once. */
export async function createApiKey(
  executor: Executor,
  principal: Principal,
  input: { name: string; role?: MemberRole | null },
) {
  const role = keyRoleFor(principal, input.role);
  const owner = await keyOwner(executor, principal);
  const key = generateKey('account');
  const row = await withTransaction(executor, async (tx) => {
    const [created] = await tx
      .insert(apiKeys)
      .values({
        accountId: owner.accountId,
        name: input.name,
        keyHash: key.hash,
        prefix: key.prefix,
        createdByDeviceId: owner.deviceId,
        createdByMemberId: principal.kind === 'account' ? (principal.memberId ?? null) : null,
        role,
      })
      .returning();
    if (!created) throw new Error('createApiKey: insert returned no row');
    await recordAudit(tx, {
      accountId: owner.accountId,
      action: 'api_key.created',
      target: created.id,
      details: { name: created.name, prefix: created.prefix, ...(created.role ? { role: created.role } : {}) },
    });
    return created;
  });
  return {
    id: row.id,
    name: row.name,
    key: key.key,
    prefix: row.prefix,
    created_at: iso(row.createdAt) ?? '',
    role: row.role,
  };
}

/** The account's keys, revoked ones included, newest first; never the key or its hash. */
export async function listApiKeys(executor: Executor, accountId: string, page: PageQuery) {
  const keyset = keysetPage(page, { createdAt: apiKeys.createdAt, id: apiKeys.id, idType: 'uuid' });
  const rows = await executor
    .select({ ...getTableColumns(apiKeys), createdBy: members.email })
    .from(apiKeys)
    .leftJoin(members, and(eq(members.id, apiKeys.createdByMemberId), eq(members.accountId, apiKeys.accountId)))
    .where(and(eq(apiKeys.accountId, accountId), keyset.after))
    .orderBy(...keyset.orderBy)
    .limit(keyset.limit);
  return toPage(rows, page.limit, presentApiKey);
}

/** Revokes at once, in this process (the key cache is cleared) and within seconds elsewhere. */
export async function revokeApiKey(executor: Executor, accountId: string, keyId: string): Promise<void> {
  await withTransaction(executor, async (tx) => {
    // `now()` outside a CASE or COALESCE: a form Citus runs on a reference table too.
    const [row] = await tx
      .update(apiKeys)
      .set({ revokedAt: sql`now()` })
      .where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, accountId), isNull(apiKeys.revokedAt)))
      .returning({ id: apiKeys.id, prefix: apiKeys.prefix });
    if (!row) {
      // Revoked already (it stays revoked as of then), or not the account's.
      const [existing] = await tx
        .select({ id: apiKeys.id })
        .from(apiKeys)
        .where(and(eq(apiKeys.id, keyId), eq(apiKeys.accountId, accountId)));
      if (!existing) throw notFound('API key');
      return;
    }
    await recordAudit(tx, { accountId, action: 'api_key.revoked', target: row.id, details: { prefix: row.prefix } });
    await keysChanged(tx);
  });
  clearKeyCache();
}
