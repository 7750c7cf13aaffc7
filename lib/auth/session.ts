import { and, eq, isNull } from 'drizzle-orm';
import { decode } from 'next-auth/jwt';
import { type Database, getDb } from '@/db';
import { apiKeys } from '@/db/schema';
import { appSecret } from '@/lib/config';
import type { AccountPrincipal } from './principal';

/** next-auth's cookie names: the `__Secure-` one when the app is served over https. */
export const SESSION_COOKIE_NAMES = ['__Secure-next-auth.session-token', 'next-auth.session-token'] as const;

/** The claims Simgate puts in the session JWT (next to next-auth's own). */
export type SessionClaims = { accountId: string; keyId: string | null };

function parseCookieHeader(header: string | null): Map<string, string> {
  const cookies = new Map<string, string>();
  for (const part of (header ?? '').split(';')) {
    const separator = part.indexOf('=');
    if (separator < 1) continue;
    const name = part.slice(0, separator).trim();
    const raw = part.slice(separator + 1).trim();
    try {
      cookies.set(name, decodeURIComponent(raw));
    } catch {
      cookies.set(name, raw);
    }
  }
  return cookies;
}

/** A session cookie's value; next-auth splits one over 4 KB into `name.0`, `name.1`, …. */
function sessionToken(cookies: Map<string, string>, name: string): string | undefined {
  const whole = cookies.get(name);
  if (whole) return whole;
  const chunks: string[] = [];
  for (let index = 0; cookies.has(`${name}.${index}`); index++) chunks.push(cookies.get(`${name}.${index}`) ?? '');
  return chunks.length ? chunks.join('') : undefined;
}

/** The Simgate claims of a session token, or null when it is forged, expired or not ours. */
export async function decodeSessionToken(token: string): Promise<SessionClaims | null> {
  try {
    const payload = await decode({ token, secret: appSecret() });
    if (typeof payload?.accountId !== 'string') return null;
    return { accountId: payload.accountId, keyId: typeof payload.keyId === 'string' ? payload.keyId : null };
  } catch {
    return null;
  }
}

async function isLiveKey(db: Database, keyId: string): Promise<boolean> {
  const [row] = await db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.revokedAt)));
  return Boolean(row);
}

/**
 * The account principal behind a Cookie header's dashboard session, or null. A session opened
 * with an API key ends when that key is revoked.
 */
export async function sessionFromCookieHeader(header: string | null): Promise<AccountPrincipal | null> {
  const cookies = parseCookieHeader(header);
  for (const name of SESSION_COOKIE_NAMES) {
    const token = sessionToken(cookies, name);
    if (!token) continue;
    const claims = await decodeSessionToken(token);
    if (!claims) continue;
    if (claims.keyId && !(await isLiveKey(await getDb(), claims.keyId))) return null;
    return { kind: 'account', accountId: claims.accountId, keyId: null, via: 'session' };
  }
  return null;
}

/** The dashboard session behind a request's cookie, as an account principal (works without Next's context). */
export function sessionPrincipal(req: Request): Promise<AccountPrincipal | null> {
  return sessionFromCookieHeader(req.headers.get('cookie'));
}
