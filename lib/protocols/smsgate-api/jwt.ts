import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { and, count, eq, gt, inArray, isNull, lt, min, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { apiKeys, smsgateTokens } from '@/db/schema';
import type { AccountPrincipal } from '@/lib/auth/principal';
import { config } from '@/lib/config';
import { derivedKey } from '@/lib/crypto/derived-key';
import { DomainError, notFound, rateLimited } from '@/lib/errors';
import { withTransaction } from '@/lib/transactions';
import { REFRESH_SCOPE } from './scopes';

/**
 * JWTs of SMSGate's integrator API, as its reference server issues them (internal/sms-gateway/jwt):
 * HS256, claims `iss`, `sub`, `jti`, `iat`, `exp`, `user_id` and `scopes`; a refresh token carries
 * the scope `tokens:refresh` and the access token's scopes as `original_scopes`. Signed with a key
 * derived from APP_SECRET. Every token issued has a row in smsgate_tokens, and is accepted only
 * while that row is unrevoked and the API key it was issued under is live.
 *
 * A token minted by another token (POST /auth/token with a JWT as Bearer) is that token's child:
 * its row names the minter (`parent_jti`, as a refresh token names its access token), it lives no
 * longer than the minter (its refresh token neither), a refresh of it keeps both, and revoking a
 * token revokes every descendant with it. An account holds at most SMSGATE_TOKENS_PER_ACCOUNT live
 * access tokens.
 */

const ISSUER = 'simgate';
/** The access token's lifetime when `ttl` is 0 or absent (the reference's `jwt.access_ttl` default). */
export const ACCESS_TTL_DEFAULT_S = 15 * 60;
/** A longer `ttl` is cut to this, as the reference cuts it to its `access_ttl`. */
export const ACCESS_TTL_MAX_S = 24 * 3600;
/** The refresh token's lifetime (the reference's `jwt.refresh_ttl` default, 720 h). */
export const REFRESH_TTL_S = 30 * 24 * 3600;

const JTI_ALPHABET = 'useandom-26T198340PX75pxJACKVERYMINDBUSHWOLF_GQZbfghjklqvwyzrict';

type Claims = {
  iss: string;
  sub: string;
  jti: string;
  iat: number;
  exp: number;
  user_id: string;
  scopes: string[];
  original_scopes?: string[];
};

export type TokenResponse = {
  id: string;
  token_type: 'Bearer';
  access_token: string;
  refresh_token: string;
  expires_at: string;
};

/** A 21-character id, as the reference's nanoid `jti`. */
function newJti(): string {
  return [...randomBytes(21)].map((byte) => JTI_ALPHABET[byte & 63]).join('');
}

const b64 = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
const signature = (input: string) => createHmac('sha256', derivedKey('smsgate-jwt')).update(input).digest();

function sign(claims: Claims): string {
  const input = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims)}`;
  return `${input}.${signature(input).toString('base64url')}`;
}

const JWT_SHAPE = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/;

/** Whether a Bearer credential is a JWT (our keys have no dots). */
export function looksLikeJwt(credential: string): boolean {
  return JWT_SHAPE.test(credential);
}

const isStrings = (value: unknown): value is string[] =>
  Array.isArray(value) && value.every((item) => typeof item === 'string');

/** The claims of a token signed by us, unexpired; undefined for anything else. */
function verify(token: string, now: number): Claims | undefined {
  if (!looksLikeJwt(token)) return undefined;
  const [header, payload, sig] = token.split('.') as [string, string, string];
  const expected = signature(`${header}.${payload}`);
  const given = Buffer.from(sig, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  try {
    const head = JSON.parse(Buffer.from(header, 'base64url').toString('utf8')) as { alg?: unknown };
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as Partial<Claims>;
    if (head.alg !== 'HS256' || claims.iss !== ISSUER) return undefined;
    if (typeof claims.jti !== 'string' || typeof claims.sub !== 'string' || !isStrings(claims.scopes)) return undefined;
    if (typeof claims.exp !== 'number' || claims.exp <= now || typeof claims.iat !== 'number') return undefined;
    if (claims.original_scopes !== undefined && !isStrings(claims.original_scopes)) return undefined;
    return claims as Claims;
  } catch {
    return undefined;
  }
}

/**
 * The account a Bearer JWT speaks for: valid signature, unexpired, its row unrevoked and the API
 * key it was issued under live. Null otherwise (the caller answers 401).
 */
export async function principalForJwt(executor: Executor, token: string): Promise<AccountPrincipal | null> {
  const now = new Date();
  const claims = verify(token, Math.floor(now.getTime() / 1000));
  if (!claims) return null;
  const [row] = await executor
    .select({ keyId: smsgateTokens.keyId })
    .from(smsgateTokens)
    .innerJoin(apiKeys, eq(apiKeys.id, smsgateTokens.keyId))
    .where(
      and(
        eq(smsgateTokens.jti, claims.jti),
        eq(smsgateTokens.accountId, claims.sub),
        isNull(smsgateTokens.revokedAt),
        gt(smsgateTokens.expiresAt, now),
        isNull(apiKeys.revokedAt),
      ),
    );
  if (!row) return null;
  return {
    kind: 'account',
    accountId: claims.sub,
    keyId: row.keyId,
    via: 'api_key',
    token: { jti: claims.jti, scopes: claims.scopes, originalScopes: claims.original_scopes ?? [], exp: claims.exp },
  };
}

/**
 * A new access token and its refresh token, recorded under `keyId`. `parentJti`: the token that
 * minted it, if one did; `notAfter` (Unix seconds): neither token lives past it.
 */
async function issuePair(
  executor: Executor,
  accountId: string,
  keyId: string,
  scopes: string[],
  ttlSeconds: number,
  lineage: { parentJti?: string; notAfter?: number } = {},
): Promise<TokenResponse> {
  const now = Date.now();
  const iat = Math.floor(now / 1000);
  const notAfter = lineage.notAfter ?? Number.POSITIVE_INFINITY;
  const access = { jti: newJti(), exp: Math.min(iat + ttlSeconds, notAfter) };
  const refresh = { jti: newJti(), exp: Math.min(iat + REFRESH_TTL_S, notAfter) };
  const base = { iss: ISSUER, sub: accountId, user_id: accountId, iat };
  const accessToken = sign({ ...base, jti: access.jti, exp: access.exp, scopes });
  const refreshToken = sign({
    ...base,
    jti: refresh.jti,
    exp: refresh.exp,
    scopes: [REFRESH_SCOPE],
    original_scopes: scopes,
  });
  await executor.insert(smsgateTokens).values([
    {
      jti: access.jti,
      accountId,
      keyId,
      use: 'access',
      parentJti: lineage.parentJti ?? null,
      expiresAt: new Date(access.exp * 1000),
    },
    {
      jti: refresh.jti,
      accountId,
      keyId,
      use: 'refresh',
      parentJti: access.jti,
      expiresAt: new Date(refresh.exp * 1000),
    },
  ]);
  return {
    id: access.jti,
    token_type: 'Bearer',
    access_token: accessToken,
    refresh_token: refreshToken,
    expires_at: new Date(access.exp * 1000).toISOString(),
  };
}

/**
 * SMSGATE_TOKENS_PER_ACCOUNT: one more live access token than the cap answers 429, its Retry-After
 * when the oldest-expiring one ends. Counted under the account's lock, so concurrent issues cannot
 * all pass; expired rows of the account are dropped on the way (they can never be accepted again).
 */
async function assertRoomForToken(tx: Executor, accountId: string): Promise<void> {
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
 * POST /auth/token: a token with `scopes`, living `ttl` seconds (0: the default; cut to the
 * maximum). A caller holding a JWT can only hand on scopes it holds itself, and the token it mints
 * is its child: it lives no longer than the caller's, and is revoked with it.
 */
export async function issueToken(
  executor: Executor,
  principal: AccountPrincipal,
  request: { scopes: string[]; ttl: number },
): Promise<TokenResponse> {
  const minter = principal.token;
  const held = minter?.scopes;
  const beyond = held ? request.scopes.filter((scope) => !held.includes(scope)) : [];
  if (beyond.length > 0)
    throw new DomainError('FORBIDDEN', `A token cannot grant scopes it lacks: ${beyond.join(', ')}.`);
  const keyId = principal.keyId;
  if (!keyId) throw new DomainError('FORBIDDEN', 'Tokens are issued to an API key.');
  const ttl = Math.min(request.ttl || ACCESS_TTL_DEFAULT_S, ACCESS_TTL_MAX_S);
  return withTransaction(executor, async (tx) => {
    await assertRoomForToken(tx, principal.accountId);
    const lineage = minter ? { parentJti: minter.jti, notAfter: minter.exp } : {};
    return issuePair(tx, principal.accountId, keyId, [...new Set(request.scopes)], ttl, lineage);
  });
}

/**
 * POST /auth/token/refresh with a refresh token as Bearer: the token is used up (revoked) and a
 * new pair with the original scopes answers; a used refresh token is refused (401).
 */
export async function refreshToken(executor: Executor, principal: AccountPrincipal): Promise<TokenResponse> {
  const token = principal.token;
  if (!token || !principal.keyId || token.originalScopes.length === 0) {
    throw new DomainError('UNAUTHENTICATED', 'Send a refresh token as the Bearer token.');
  }
  const keyId = principal.keyId;
  return withTransaction(executor, async (tx) => {
    const used = await tx
      .update(smsgateTokens)
      .set({ revokedAt: new Date() })
      .where(
        and(
          eq(smsgateTokens.jti, token.jti),
          eq(smsgateTokens.accountId, principal.accountId),
          eq(smsgateTokens.use, 'refresh'),
          isNull(smsgateTokens.revokedAt),
        ),
      )
      .returning({ jti: smsgateTokens.jti, parentJti: smsgateTokens.parentJti });
    if (used.length === 0) throw new DomainError('UNAUTHENTICATED', 'The refresh token has been used or revoked.');
    await assertRoomForToken(tx, principal.accountId);
    // The new pair takes the place of the refresh token's access token: a child of the same minter,
    // living no longer than the refresh token (which lives no longer than the minter).
    const parentJti = await minterOf(tx, principal.accountId, used[0]!.parentJti);
    const lineage = parentJti ? { parentJti, notAfter: token.exp } : {};
    return issuePair(tx, principal.accountId, keyId, [...token.originalScopes], ACCESS_TTL_DEFAULT_S, lineage);
  });
}

/** The token that minted the access token `accessJti`, if a token did (null: an API key did). */
async function minterOf(tx: Executor, accountId: string, accessJti: string | null): Promise<string | null> {
  if (!accessJti) return null;
  const [row] = await tx
    .select({ parentJti: smsgateTokens.parentJti })
    .from(smsgateTokens)
    .where(and(eq(smsgateTokens.accountId, accountId), eq(smsgateTokens.jti, accessJti)));
  return row?.parentJti ?? null;
}

/**
 * DELETE /auth/token/{jti}: revokes the account's token `jti` and every token descended from it:
 * the refresh token issued with it and, level by level, the tokens it minted, theirs, and so on.
 * Revoking again is a no-op; another account's jti or an unknown one is 404.
 */
export async function revokeToken(executor: Executor, accountId: string, jti: string): Promise<void> {
  const [known] = await executor
    .select({ jti: smsgateTokens.jti })
    .from(smsgateTokens)
    .where(and(eq(smsgateTokens.jti, jti), eq(smsgateTokens.accountId, accountId)));
  if (!known) throw notFound('Token');
  await withTransaction(executor, async (tx) => {
    const revoke = (where: SQL | undefined) =>
      tx
        .update(smsgateTokens)
        .set({ revokedAt: sql`coalesce(${smsgateTokens.revokedAt}, now())` })
        .where(and(eq(smsgateTokens.accountId, accountId), where))
        .returning({ jti: smsgateTokens.jti });
    await revoke(eq(smsgateTokens.jti, jti));
    // A token's descendants were issued after it: the walk ends. Each level is one statement.
    for (let level = [jti]; level.length > 0; ) {
      level = (await revoke(inArray(smsgateTokens.parentJti, level))).map((row) => row.jti);
    }
  });
}
