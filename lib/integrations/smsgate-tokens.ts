import { and, count, eq, gt, inArray, isNull, lt, min, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { apiKeys, type MemberRole, smsgateTokens } from '@/db/schema';
import { config } from '@/lib/config';
import { notFound, rateLimited } from '@/lib/errors';
import { withTransaction } from '@/lib/transactions';

/**
 * The records of the JWTs the SMSGate integrator API issues, smsgate_tokens: one row per token
 * (its `jti`), under the API key it was issued to, with the token that minted it (`parent_jti`)
 * and its end. A token is accepted only while its row is unrevoked and unexpired and its key live.
 */

export type TokenRecord = {
  jti: string;
  use: 'access' | 'refresh';
  parentJti: string | null;
  /** Unix seconds. */
  exp: number;
};

/** The API key a token was issued under and its role, while the token's row is live and the key too; undefined otherwise. */
export async function liveTokenKey(
  executor: Executor,
  accountId: string,
  jti: string,
  now: Date,
): Promise<{ keyId: string; role: MemberRole | null } | undefined> {
  const [row] = await executor
    .select({ keyId: smsgateTokens.keyId, role: apiKeys.role })
    .from(smsgateTokens)
    .innerJoin(apiKeys, eq(apiKeys.id, smsgateTokens.keyId))
    .where(
      and(
        eq(smsgateTokens.jti, jti),
        eq(smsgateTokens.accountId, accountId),
        isNull(smsgateTokens.revokedAt),
        gt(smsgateTokens.expiresAt, now),
        isNull(apiKeys.revokedAt),
      ),
    );
  return row;
}

/** Records tokens issued to the account under `keyId`, in one statement. */
export async function recordTokens(
  executor: Executor,
  accountId: string,
  keyId: string,
  tokens: TokenRecord[],
): Promise<void> {
  await executor.insert(smsgateTokens).values(
    tokens.map((token) => ({
      jti: token.jti,
      accountId,
      keyId,
      use: token.use,
      parentJti: token.parentJti,
      expiresAt: new Date(token.exp * 1000),
    })),
  );
}

/**
 * SMSGATE_TOKENS_PER_ACCOUNT: one more live access token than the cap answers 429, its Retry-After
 * when the oldest-expiring one ends. Counted under the account's lock (so `tx` is a transaction),
 * so concurrent issues cannot all pass; expired rows of the account are dropped on the way (they can
 * never be accepted again).
 */
export async function assertRoomForToken(tx: Executor, accountId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`smsgate-tokens:${accountId}`}, 0))`);
  const now = new Date();
  await tx.delete(smsgateTokens).where(and(eq(smsgateTokens.accountId, accountId), lt(smsgateTokens.expiresAt, now)));
  const cap = config.smsgateTokensPerAccount;
  const [live] = await tx
    .select({ count: count(), firstEnd: min(smsgateTokens.expiresAt) })
    .from(smsgateTokens)
    .where(
      and(
        eq(smsgateTokens.accountId, accountId),
        eq(smsgateTokens.use, 'access'),
        isNull(smsgateTokens.revokedAt),
        gt(smsgateTokens.expiresAt, now),
      ),
    );
  if ((live?.count ?? 0) < cap) return;
  const retryAfter = Math.max(1, Math.ceil(((live?.firstEnd?.getTime() ?? now.getTime()) - now.getTime()) / 1000));
  throw rateLimited(
    retryAfter,
    `This account holds its most live tokens (${cap}). Revoke some (DELETE /auth/token/{jti}) or wait for one to expire.`,
  );
}

/**
 * Uses up the account's unrevoked refresh token `jti` (revokes it): the access token it was issued
 * with (null: none recorded), or undefined when it was used or revoked already.
 */
export async function useRefreshToken(
  executor: Executor,
  accountId: string,
  jti: string,
): Promise<{ accessJti: string | null } | undefined> {
  const [used] = await executor
    .update(smsgateTokens)
    .set({ revokedAt: new Date() })
    .where(
      and(
        eq(smsgateTokens.jti, jti),
        eq(smsgateTokens.accountId, accountId),
        eq(smsgateTokens.use, 'refresh'),
        isNull(smsgateTokens.revokedAt),
      ),
    )
    .returning({ parentJti: smsgateTokens.parentJti });
  return used ? { accessJti: used.parentJti } : undefined;
}

/** The token that minted the access token `accessJti`, if a token did (null: an API key did). */
export async function minterOf(
  executor: Executor,
  accountId: string,
  accessJti: string | null,
): Promise<string | null> {
  if (!accessJti) return null;
  const [row] = await executor
    .select({ parentJti: smsgateTokens.parentJti })
    .from(smsgateTokens)
    .where(and(eq(smsgateTokens.accountId, accountId), eq(smsgateTokens.jti, accessJti)));
  return row?.parentJti ?? null;
}

/**
 * Revokes the account's token `jti` and every token descended from it: the refresh token issued
 * with it and, level by level, the tokens it minted, theirs, and so on. Revoking again is a no-op;
 * another account's jti or an unknown one is 404.
 */
export async function revokeTokenTree(executor: Executor, accountId: string, jti: string): Promise<void> {
  const [known] = await executor
    .select({ jti: smsgateTokens.jti })
    .from(smsgateTokens)
    .where(and(eq(smsgateTokens.jti, jti), eq(smsgateTokens.accountId, accountId)));
  if (!known) throw notFound('Token');
  await withTransaction(executor, async (tx) => {
    // `now()` only where none is set: the form a distributed database (Citus) allows, where a
    // non-immutable function inside coalesce is refused.
    const revoke = (where: SQL | undefined) =>
      tx
        .update(smsgateTokens)
        .set({ revokedAt: sql`now()` })
        .where(and(eq(smsgateTokens.accountId, accountId), isNull(smsgateTokens.revokedAt), where));
    await revoke(eq(smsgateTokens.jti, jti));
    // A token's descendants were issued after it: the walk ends. Two statements per level.
    for (let level = [jti]; level.length > 0; ) {
      await revoke(inArray(smsgateTokens.parentJti, level));
      level = (
        await tx
          .select({ jti: smsgateTokens.jti })
          .from(smsgateTokens)
          .where(and(eq(smsgateTokens.accountId, accountId), inArray(smsgateTokens.parentJti, level)))
      ).map((row) => row.jti);
    }
  });
}
