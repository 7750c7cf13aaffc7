import { and, eq, isNull, sql } from 'drizzle-orm';
import { NextRequest } from 'next/server';
import { getToken, type JWT } from 'next-auth/jwt';
import { getDb } from '@/db';
import { accounts, apiKeys, type MemberRole, members } from '@/db/schema';
import { appSecret } from '@/lib/config';
import type { AccountPrincipal } from './principal';

/**
 * The claims Simgate puts in the session JWT (next to next-auth's own). `sessionVersion` is the
 * account's session version when the session was opened (lib/auth/session-version.ts); `memberId` and
 * `memberVersion` name the member an email code signed in, and that member's session version then. A
 * session opened by an API key names no member. One opened by email code before accounts had members
 * names none either: it stands for the member whose email is the account's own (its first owner).
 */
export type SessionClaims = {
  accountId: string;
  keyId: string | null;
  sessionVersion: number;
  memberId: string | null;
  memberVersion: number;
};

/**
 * The account behind a live session, with the signed-in email so the dashboard needs no second query,
 * and the member and role (none for a session a key opened: the key's role bounds it, if it has one).
 */
export type SessionAccount = {
  accountId: string;
  email: string;
  memberId: string | null;
  role: MemberRole | null;
  /** The account requires two-factor sign-in and this member has none yet: they may only enrol. */
  twoFactorPending: boolean;
};

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The Simgate claims of a decoded session token, or null when they are not ours. A token without
 * a session version predates versions (or was not made by the sign-in): it is refused, since
 * nothing could have ended it.
 */
function claimsOf(payload: JWT | null): SessionClaims | null {
  const { accountId, keyId, sessionVersion, memberId, memberVersion } = payload ?? {};
  if (typeof accountId !== 'string' || !UUID.test(accountId)) return null;
  if (typeof sessionVersion !== 'number' || !Number.isSafeInteger(sessionVersion)) return null;
  if (keyId != null && (typeof keyId !== 'string' || !UUID.test(keyId))) return null;
  if (memberId != null && (typeof memberId !== 'string' || !UUID.test(memberId))) return null;
  if (memberVersion != null && (typeof memberVersion !== 'number' || !Number.isSafeInteger(memberVersion))) return null;
  if (keyId != null && memberId != null) return null;
  return {
    accountId,
    keyId: keyId ?? null,
    sessionVersion,
    memberId: memberId ?? null,
    memberVersion: memberVersion ?? 0,
  };
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
 * session version is still the one the session was opened at (no "sign out everywhere" since), the
 * key that opened it, if one did, is not revoked, and the member it signed in is still a member, at
 * the session version it signed in at (no sign-out of theirs since).
 */
async function liveSessionAccount(claims: SessionClaims): Promise<SessionAccount | null> {
  const db = await getDb();
  const openingKey = claims.keyId
    ? and(eq(apiKeys.id, claims.keyId), eq(apiKeys.accountId, accounts.id), isNull(apiKeys.revokedAt))
    : sql`false`;
  const signedIn = claims.keyId
    ? sql`false`
    : and(
        eq(members.accountId, accounts.id),
        claims.memberId ? eq(members.id, claims.memberId) : eq(members.email, accounts.email),
      );
  const [row] = await db
    .select({
      email: accounts.email,
      sessionVersion: accounts.sessionVersion,
      liveKeyId: apiKeys.id,
      keyRole: apiKeys.role,
      memberId: members.id,
      memberEmail: members.email,
      memberRole: members.role,
      memberVersion: members.sessionVersion,
      memberTotpEnabledAt: members.totpEnabledAt,
      requireTwoFactor: accounts.requireTwoFactor,
    })
    .from(accounts)
    .leftJoin(apiKeys, openingKey)
    .leftJoin(members, signedIn)
    .where(eq(accounts.id, claims.accountId));
  if (!row || row.sessionVersion !== claims.sessionVersion) return null;
  if (claims.keyId) {
    return row.liveKeyId
      ? { accountId: claims.accountId, email: row.email, memberId: null, role: row.keyRole, twoFactorPending: false }
      : null;
  }
  if (!row.memberId || !row.memberEmail || !row.memberRole || row.memberVersion !== claims.memberVersion) return null;
  return {
    accountId: claims.accountId,
    email: row.memberEmail,
    memberId: row.memberId,
    role: row.memberRole,
    twoFactorPending: row.requireTwoFactor && !row.memberTotpEnabledAt,
  };
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
  if (!account) return null;
  const principal: AccountPrincipal = {
    kind: 'account',
    accountId: account.accountId,
    keyId: null,
    via: 'session',
    email: account.email,
  };
  if (account.memberId) principal.memberId = account.memberId;
  if (account.role) principal.role = account.role;
  if (account.twoFactorPending) principal.twoFactorPending = true;
  return principal;
}

/** The dashboard session behind a request's cookie, as an account principal (works without Next's context). */
export function sessionPrincipal(req: Request): Promise<AccountPrincipal | null> {
  return sessionFromCookieHeader(req.headers.get('cookie'));
}
