import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Executor } from '@/db';
import type { AccountPrincipal } from '@/lib/auth/principal';
import { derivedKey } from '@/lib/crypto/derived-key';
import { DomainError } from '@/lib/errors';
import {
  assertRoomForToken,
  liveTokenKey,
  minterOf,
  recordTokens,
  revokeTokenTree,
  useRefreshToken,
} from '@/lib/integrations/smsgate-tokens';
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
  const key = await liveTokenKey(executor, claims.sub, claims.jti, now);
  if (!key) return null;
  const principal: AccountPrincipal = {
    kind: 'account',
    accountId: claims.sub,
    keyId: key.keyId,
    via: 'api_key',
    token: { jti: claims.jti, scopes: claims.scopes, originalScopes: claims.original_scopes ?? [], exp: claims.exp },
  };
  // A token may do what the key it was issued under may.
  if (key.role) principal.role = key.role;
  return principal;
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
  await recordTokens(executor, accountId, keyId, [
    { jti: access.jti, use: 'access', parentJti: lineage.parentJti ?? null, exp: access.exp },
    { jti: refresh.jti, use: 'refresh', parentJti: access.jti, exp: refresh.exp },
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
    const used = await useRefreshToken(tx, principal.accountId, token.jti);
    if (!used) throw new DomainError('UNAUTHENTICATED', 'The refresh token has been used or revoked.');
    await assertRoomForToken(tx, principal.accountId);
    // The new pair takes the place of the refresh token's access token: a child of the same minter,
    // living no longer than the refresh token (which lives no longer than the minter).
    const parentJti = await minterOf(tx, principal.accountId, used.accessJti);
    const lineage = parentJti ? { parentJti, notAfter: token.exp } : {};
    return issuePair(tx, principal.accountId, keyId, [...token.originalScopes], ACCESS_TTL_DEFAULT_S, lineage);
  });
}

/**
 * DELETE /auth/token/{jti}: revokes the account's token `jti` and every token descended from it:
 * the refresh token issued with it and, level by level, the tokens it minted, theirs, and so on.
 * Revoking again is a no-op; another account's jti or an unknown one is 404.
 */
export async function revokeToken(executor: Executor, accountId: string, jti: string): Promise<void> {
  await revokeTokenTree(executor, accountId, jti);
}
