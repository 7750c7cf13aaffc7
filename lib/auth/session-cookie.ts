import { encode } from 'next-auth/jwt';
import { appSecret, config } from '@/lib/config';
import { SESSION_MAX_AGE_SECONDS } from './next-auth';
import type { SessionClaims } from './session';

const COOKIE_NAME = 'next-auth.session-token';
const SECURE_PREFIX = '__Secure-';

function escaped(name: string): string {
  return name.replace(/[.-]/g, '\\$&');
}

/**
 * Whether the session cookie is next-auth's `__Secure-` one: the name the browser sent, or else what
 * next-auth picks, an https app URL (APP_URL, which also sets NEXTAUTH_URL) or an https request.
 */
function usesSecureCookie(req: Request, cookieHeader: string): boolean {
  if (new RegExp(`(^|;\\s*)${escaped(SECURE_PREFIX + COOKIE_NAME)}(\\.\\d+)?=`).test(cookieHeader)) return true;
  if (new RegExp(`(^|;\\s*)${escaped(COOKIE_NAME)}(\\.\\d+)?=`).test(cookieHeader)) return false;
  return (config.appUrl ?? req.url).startsWith('https://');
}

/**
 * The Set-Cookie headers that replace the request's session with one for `claims`, as next-auth writes its
 * own: the same cookie name, an encrypted JWT with the session's lifetime, HttpOnly, SameSite=Lax, Path=/,
 * Secure on https. Chunks of a session cookie next-auth split (`.0`, `.1`, …) are cleared, since next-auth
 * would join them with the new one.
 */
export async function sessionCookieHeaders(req: Request, claims: SessionClaims & { email: string }): Promise<string[]> {
  const cookieHeader = req.headers.get('cookie') ?? '';
  const secure = usesSecureCookie(req, cookieHeader);
  const name = `${secure ? SECURE_PREFIX : ''}${COOKIE_NAME}`;
  const attributes = `Path=/; HttpOnly; SameSite=Lax${secure ? '; Secure' : ''}`;
  const value = await encode({
    token: { sub: claims.accountId, ...claims },
    secret: appSecret(),
    maxAge: SESSION_MAX_AGE_SECONDS,
  });
  const expires = new Date(Date.now() + SESSION_MAX_AGE_SECONDS * 1000).toUTCString();
  const chunks = [...cookieHeader.matchAll(new RegExp(`(?:^|;\\s*)(${escaped(name)}\\.\\d+)=`, 'g'))].map((m) => m[1]);
  return [
    `${name}=${value}; ${attributes}; Max-Age=${SESSION_MAX_AGE_SECONDS}; Expires=${expires}`,
    ...chunks.map((chunk) => `${chunk}=; ${attributes}; Max-Age=0; Expires=Thu, 01 Jan 1970 00:00:00 GMT`),
  ];
}
