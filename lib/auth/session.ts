import { and, eq, isNull, sql } from 'drizzle-orm';
import { NextRequest } from 'next/server';
import { getToken, type JWT } from 'next-auth/jwt';
import { getDb } from '@/db';
import { accounts, apiKeys } from '@/db/schema';
import { appSecret } from '@/lib/config';
import type { AccountPrincipal } from './principal';

/**
 * The claims Simgate puts in the session JWT (next to next-auth's own). `sessionVersion` is the
 * account's session version when the session was opened (lib/auth/session-version.ts).
 */
export type SessionClaims = { accountId: string; keyId: string | null; sessionVersion: number };

/** The account behind a live session, with its email so the dashboard needs no second query. */
export type SessionAccount = { accountId: string; email: string };

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The Simgate claims of a decoded session token, or null when they are not ours. A token without
 * a session version predates versions (or was not made by the sign-in): it is refused, since
 * nothing could have ended it.
 */
function claimsOf(payload: JWT | null): SessionClaims | null {
  const { accountId, keyId, sessionVersion } = payload ?? {};
  if (typeof accountId !== 'string' || !UUID.test(accountId)) return null;
  if (typeof sessionVersion !== 'number' || !Number.isSafeInteger(sessionVersion)) return null;
  if (keyId != null && (typeof keyId !== 'string' || !UUID.test(keyId))) return null;
  return { accountId, keyId: keyId ?? null, sessionVersion };
}

/**
 * The claims of the session cookie in a Cookie header, read by next-auth itself (its cookie names,
 * chunked cookies over 4 KB, decryption): the `__Secure-` cookie of an https app, else the plain one.
 */
async function sessionClaims(cookieHeader: string | null): Promise<SessionClaims | null> {
  if (!cookieHeader) return null;
  const req = new NextRequest('http://session.invalid/', { headers: { cookie: cookieHeader } });
  for (const secureCookie of [true, false]) {
    const claims = claimsOf(await getToken({ req, secret: appSecret(), secureCookie }));
    if (claims) return claims;
  }
  return null;
}

/**
 * The account of a session that has not ended, in one query: the account still exists, its
 * session version is still the one the session was opened at (no sign-out since), and the key
 * that opened it, if one did, is not revoked.
 */
async function liveSessionAccount(claims: SessionClaims): Promise<SessionAccount | null> {
  const db = await getDb();
  const openingKey = claims.keyId
    ? and(eq(apiKeys.id, claims.keyId), eq(apiKeys.accountId, accounts.id), isNull(apiKeys.revokedAt))
    : sql`false`;
  const [row] = await db
    .select({ email: accounts.email, sessionVersion: accounts.sessionVersion, liveKeyId: apiKeys.id })
    .from(accounts)
    .leftJoin(apiKeys, openingKey)
    .where(eq(accounts.id, claims.accountId));
  if (!row || row.sessionVersion !== claims.sessionVersion) return null;
  if (claims.keyId && !row.liveKeyId) return null;
  return { accountId: claims.accountId, email: row.email };
}

/** The account signed in by a Cookie header's dashboard session, or null when there is none or it has ended. */
export async function sessionAccountFromCookieHeader(header: string | null): Promise<SessionAccount | null> {
  const claims = await sessionClaims(header);
  return claims && liveSessionAccount(claims);
}

/**
 * The account principal behind a Cookie header's dashboard session, or null. A session ends on
 * sign-out (lib/auth/session-version.ts) and, when an API key opened it, when that key is revoked.
 */
export async function sessionFromCookieHeader(header: string | null): Promise<AccountPrincipal | null> {
  const account = await sessionAccountFromCookieHeader(header);
  return (
    account && { kind: 'account', accountId: account.accountId, keyId: null, via: 'session', email: account.email }
  );
}

/** The dashboard session behind a request's cookie, as an account principal (works without Next's context). */
export function sessionPrincipal(req: Request): Promise<AccountPrincipal | null> {
  return sessionFromCookieHeader(req.headers.get('cookie'));
}
