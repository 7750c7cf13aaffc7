import { randomBytes, randomInt, scrypt, timingSafeEqual } from 'node:crypto';
import { and, count, eq, inArray, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { rateLimitHits, smppCredentials } from '@/db/schema';
import { recordAudit } from '@/lib/audit/record';
import { DomainError, notFound, validationError } from '@/lib/errors';
import { notifyOnCommit } from '@/lib/notify/channel';
import { keysetPage, type PageQuery, toPage } from '@/lib/pagination';
import { ipBucket } from '@/lib/rate-limit/client-ip';
import { windowState } from '@/lib/rate-limit/consume';
import { isUniqueViolation, withTransaction } from '@/lib/transactions';
import { iso } from '@/lib/wire';
import {
  SMPP_CREDENTIALS_PER_ACCOUNT,
  SMPP_LOCKOUT_AFTER_FAILURES,
  SMPP_LOCKOUT_MS,
  SYSTEM_ID_PATTERN,
} from './limits';

/** Notified (on commit) when a login is revoked: every instance closes that login's binds. */
export const SMPP_CREDENTIALS_CHANNEL = 'simgate_smpp_credentials';

type CredentialRow = typeof smppCredentials.$inferSelect;

export function presentSmppCredential(row: CredentialRow) {
  return {
    system_id: row.systemId,
    created_at: iso(row.createdAt) ?? '',
    last_bound_at: iso(row.lastBoundAt),
    locked_until: row.lockedUntil && row.lockedUntil.getTime() > Date.now() ? iso(row.lockedUntil) : null,
  };
}

// SMPP 3.4 carries a password of 8 characters at most: a salted, memory-hard hash keeps a copy
// of the table from giving the passwords away, and costs each bind attempt some 50 ms.
const SCRYPT = { N: 16_384, r: 8, p: 1 } as const;
const KEY_LENGTH = 32;
const PASSWORD_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
const PASSWORD_LENGTH = 8;

function derive(password: string, salt: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    scrypt(password, salt, KEY_LENGTH, SCRYPT, (error, key) => (error ? reject(error) : resolve(key)));
  });
}

async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt);
  return `scrypt$${salt.toString('base64')}$${key.toString('base64')}`;
}

async function passwordMatches(password: string, stored: string): Promise<boolean> {
  const [scheme, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !key) return false;
  const expected = Buffer.from(key, 'base64');
  const actual = await derive(password, Buffer.from(salt, 'base64'));
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

function randomText(length: number, alphabet: string): string {
  let out = '';
  for (let i = 0; i < length; i += 1) out += alphabet[randomInt(alphabet.length)];
  return out;
}

/** A new login: `system_id` as asked (or `sg` + 10 random characters) and an 8-character password, shown this once. */
export async function createSmppCredential(executor: Executor, accountId: string, input: { system_id?: string }) {
  const systemId = input.system_id ?? `sg${randomText(10, 'abcdefghijkmnopqrstuvwxyz23456789')}`;
  if (!SYSTEM_ID_PATTERN.test(systemId)) throw validationError('system_id', '1 to 16 letters, digits, _ or -');
  const password = randomText(PASSWORD_LENGTH, PASSWORD_ALPHABET);
  const passwordHash = await hashPassword(password);
  try {
    const row = await withTransaction(executor, async (tx) => {
      const [held] = await tx
        .select({ n: count() })
        .from(smppCredentials)
        .where(eq(smppCredentials.accountId, accountId));
      if ((held?.n ?? 0) >= SMPP_CREDENTIALS_PER_ACCOUNT) {
        throw new DomainError(
          'PLAN_LIMIT_REACHED',
          `An account holds at most ${SMPP_CREDENTIALS_PER_ACCOUNT} SMPP logins; revoke one first.`,
        );
      }
      const [created] = await tx.insert(smppCredentials).values({ accountId, systemId, passwordHash }).returning();
      if (!created) throw new Error('createSmppCredential: insert returned no row');
      await recordAudit(tx, {
        accountId,
        action: 'smpp_credential.created',
        target: created.id,
        details: { system_id: systemId },
      });
      return created;
    });
    return { ...presentSmppCredential(row), password };
  } catch (error) {
    if (isUniqueViolation(error, 'smpp_credentials_system_id_key')) {
      throw new DomainError('DUPLICATE_NAME', `The system_id ${systemId} is taken; choose another.`);
    }
    throw error;
  }
}

/** The account's logins, newest first; never a password or its hash. */
export async function listSmppCredentials(executor: Executor, accountId: string, page: PageQuery) {
  const keyset = keysetPage(page, { createdAt: smppCredentials.createdAt, id: smppCredentials.id, idType: 'uuid' });
  const rows = await executor
    .select()
    .from(smppCredentials)
    .where(and(eq(smppCredentials.accountId, accountId), keyset.after))
    .orderBy(...keyset.orderBy)
    .limit(keyset.limit);
  return toPage(rows, page.limit, presentSmppCredential);
}

/** Deletes the login; every instance closes its binds once the transaction commits. */
export async function revokeSmppCredential(executor: Executor, accountId: string, systemId: string): Promise<void> {
  await withTransaction(executor, async (tx) => {
    const [row] = await tx
      .delete(smppCredentials)
      .where(and(eq(smppCredentials.accountId, accountId), eq(smppCredentials.systemId, systemId)))
      .returning({ id: smppCredentials.id });
    if (!row) throw notFound('SMPP login');
    await recordAudit(tx, {
      accountId,
      action: 'smpp_credential.revoked',
      target: row.id,
      details: { system_id: systemId },
    });
    await notifyOnCommit(tx, SMPP_CREDENTIALS_CHANNEL);
  });
}

export type BindLogin =
  | { outcome: 'ok'; accountId: string; credentialId: string; systemId: string }
  | { outcome: 'unknown_system_id' | 'wrong_password' | 'locked' };

/**
 * Checks a bind's system_id and password. After SMPP_LOCKOUT_AFTER_FAILURES wrong passwords in a
 * row the login refuses every password, the right one too, for SMPP_LOCKOUT_MS; the count and the
 * lock are in the database, so they hold across instances.
 */
export async function checkBindLogin(executor: Executor, systemId: string, password: string): Promise<BindLogin> {
  if (!SYSTEM_ID_PATTERN.test(systemId)) return { outcome: 'unknown_system_id' };
  const [row] = await executor.select().from(smppCredentials).where(eq(smppCredentials.systemId, systemId));
  if (!row) return { outcome: 'unknown_system_id' };
  const now = new Date();
  if (row.lockedUntil && row.lockedUntil.getTime() > now.getTime()) return { outcome: 'locked' };
  if (!(await passwordMatches(password, row.passwordHash))) {
    const [failed] = await executor
      .update(smppCredentials)
      .set({ failedAttempts: sql`${smppCredentials.failedAttempts} + 1` })
      .where(and(eq(smppCredentials.id, row.id), eq(smppCredentials.accountId, row.accountId)))
      .returning({ failedAttempts: smppCredentials.failedAttempts });
    if ((failed?.failedAttempts ?? 0) >= SMPP_LOCKOUT_AFTER_FAILURES) {
      await executor
        .update(smppCredentials)
        .set({ failedAttempts: 0, lockedUntil: new Date(now.getTime() + SMPP_LOCKOUT_MS) })
        .where(and(eq(smppCredentials.id, row.id), eq(smppCredentials.accountId, row.accountId)));
    }
    return { outcome: 'wrong_password' };
  }
  await executor
    .update(smppCredentials)
    .set({ failedAttempts: 0, lockedUntil: null, lastBoundAt: now })
    .where(and(eq(smppCredentials.id, row.id), eq(smppCredentials.accountId, row.accountId)));
  return { outcome: 'ok', accountId: row.accountId, credentialId: row.id, systemId: row.systemId };
}

/** Of these logins, the ones that still exist (a revoked login's binds are closed). */
export async function liveCredentialIds(executor: Executor, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await executor
    .select({ id: smppCredentials.id })
    .from(smppCredentials)
    .where(inArray(smppCredentials.id, [...ids]));
  return new Set(rows.map((row) => row.id));
}

/**
 * Failed binds from one address (an IPv6 client by its /64) within `windowSeconds`, counted in the
 * database across instances: past the server's limit a bind from there is refused before any
 * password is hashed.
 */
export async function recentBindFailures(executor: Executor, address: string, windowSeconds: number): Promise<number> {
  return (await windowState(executor, ipBucket('smpp-bind-failure', address), windowSeconds)).hits;
}

export async function recordBindFailure(executor: Executor, address: string): Promise<void> {
  await executor.insert(rateLimitHits).values({ bucket: ipBucket('smpp-bind-failure', address) });
}
