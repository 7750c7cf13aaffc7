import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { and, eq, gt, isNull, lt, or } from 'drizzle-orm';
import type { Executor } from '@/db';
import { apiKeys, smsgateTokens } from '@/db/schema';
import type { AccountPrincipal } from '@/lib/auth/principal';
import { derivedKey } from '@/lib/crypto/derived-key';
import { DomainError, notFound } from '@/lib/errors';
import { withTransaction } from '@/lib/transactions';
import { REFRESH_SCOPE } from './scopes';

/**
 * JWTs of SMSGate's integrator API, as its reference server issues them (internal/sms-gateway/jwt):
 * HS256, claims `iss`, `sub`, `jti`, `iat`, `exp`, `user_id` and `scopes`; a refresh token carries
 * the scope `tokens:refresh` and the access token's scopes as `original_scopes`. Signed with a key
 * derived from APP_SECRET. Every token issued has a row in smsgate_tokens, and is accepted only
 * while that row is unrevoked and the API key it was issued under is live.
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
    token: { jti: claims.jti, scopes: claims.scopes, originalScopes: claims.original_scopes ?? [] },
  };
}

/** A new access token and its refresh token, recorded under `keyId`. */
async function issuePair(
  executor: Executor,
  accountId: string,
  keyId: string,
  scopes: string[],
  ttlSeconds: number,
): Promise<TokenResponse> {
  const now = Date.now();
  const iat = Math.floor(now / 1000);
  const access = { jti: newJti(), exp: iat + ttlSeconds };
  const refresh = { jti: newJti(), exp: iat + REFRESH_TTL_S };
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
    { jti: access.jti, accountId, keyId, use: 'access', expiresAt: new Date(access.exp * 1000) },
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
 * POST /auth/token: a token with `scopes`, living `ttl` seconds (0: the default; cut to the
 * maximum). A caller holding a JWT can only hand on scopes it holds itself. Expired rows of the
 * account are dropped on the way: they can never be accepted again.
 */
export async function issueToken(
  executor: Executor,
  principal: AccountPrincipal,
  request: { scopes: string[]; ttl: number },
): Promise<TokenResponse> {
  const held = principal.token?.scopes;
  const beyond = held ? request.scopes.filter((scope) => !held.includes(scope)) : [];
  if (beyond.length > 0)
    throw new DomainError('FORBIDDEN', `A token cannot grant scopes it lacks: ${beyond.join(', ')}.`);
  if (!principal.keyId) throw new DomainError('FORBIDDEN', 'Tokens are issued to an API key.');
  const ttl = Math.min(request.ttl || ACCESS_TTL_DEFAULT_S, ACCESS_TTL_MAX_S);
  await executor
    .delete(smsgateTokens)
    .where(and(eq(smsgateTokens.accountId, principal.accountId), lt(smsgateTokens.expiresAt, new Date())));
  return issuePair(executor, principal.accountId, principal.keyId, [...new Set(request.scopes)], ttl);
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
      .returning({ jti: smsgateTokens.jti });
    if (used.length === 0) throw new DomainError('UNAUTHENTICATED', 'The refresh token has been used or revoked.');
    return issuePair(tx, principal.accountId, keyId, [...token.originalScopes], ACCESS_TTL_DEFAULT_S);
  });
}

/**
 * DELETE /auth/token/{jti}: revokes the account's token `jti` and the refresh token issued with
 * it (or, for a refresh token's jti, that one). Revoking again is a no-op; another account's jti
 * or an unknown one is 404.
 */
export async function revokeToken(executor: Executor, accountId: string, jti: string): Promise<void> {
  const [known] = await executor
    .select({ jti: smsgateTokens.jti })
    .from(smsgateTokens)
    .where(and(eq(smsgateTokens.jti, jti), eq(smsgateTokens.accountId, accountId)));
  if (!known) throw notFound('Token');
  await executor
    .update(smsgateTokens)
    .set({ revokedAt: new Date() })
    .where(
      and(
        eq(smsgateTokens.accountId, accountId),
        or(eq(smsgateTokens.jti, jti), eq(smsgateTokens.parentJti, jti)),
        isNull(smsgateTokens.revokedAt),
      ),
    );
}
