import type { Database } from '@/db';
import { principalForKey, touchLastUsed } from '@/lib/auth/key-lookup';
import type { AccountPrincipal, DevicePrincipal, Principal } from '@/lib/auth/principal';
import { sessionPrincipal } from '@/lib/auth/session';
import { config } from '@/lib/config';
import { DomainError } from '@/lib/errors';
import { looksLikeJwt, principalForJwt } from '@/lib/protocols/smsgate-api/jwt';
import { authenticateTwilio } from '@/lib/protocols/twilio/credentials';
import { takeKeyToken } from '@/lib/rate-limit/key-bucket';

/**
 * `integrator`: SMSGate's integrator API, an account key as HTTP Basic password or Bearer token, or one of its JWTs as Bearer.
 * `twilio`: the Twilio-compatible API, HTTP Basic with the account's Account SID and Auth Token.
 */
export type AuthMode = 'none' | 'account' | 'device' | 'any' | 'integrator' | 'twilio';

export type PrincipalFor<M extends AuthMode> = M extends 'none'
  ? null
  : M extends 'account' | 'integrator' | 'twilio'
    ? AccountPrincipal
    : M extends 'device'
      ? DevicePrincipal
      : Principal;

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function unauthenticated(detail: string): DomainError {
  return new DomainError('UNAUTHENTICATED', detail, { headers: { 'WWW-Authenticate': 'ApiKey header="X-API-Key"' } });
}

/**
 * The origins the app is served from for this request: the one the browser addressed (its Host
 * header, which a cross-site page cannot choose), the URL Next built, and APP_URL behind a proxy.
 */
function ownOrigins(req: Request): Set<string> {
  const url = new URL(req.url);
  const origins = new Set([url.origin]);
  const host = req.headers.get('host');
  if (host) origins.add(`${url.protocol}//${host}`);
  if (config.appUrl) origins.add(new URL(config.appUrl).origin);
  return origins;
}

/** A cookie-authenticated state change must come from the app's own origin (CSRF). */
function assertSameOrigin(req: Request): void {
  if (SAFE_METHODS.has(req.method)) return;
  const origin = req.headers.get('origin');
  if (!origin || !ownOrigins(req).has(origin)) {
    throw new DomainError('FORBIDDEN', 'A request made with the session cookie must come from the app itself.');
  }
}

/**
 * The key the caller presents: the X-API-Key header, or `Authorization: Bearer <key>` (how the
 * SMSGate app sends its device credential, and how many HTTP clients send API keys).
 */
export function presentedKey(req: Request): string | undefined {
  const header = req.headers.get('x-api-key')?.trim();
  if (header) return header;
  return /^Bearer\s+(\S+)\s*$/i.exec(req.headers.get('authorization') ?? '')?.[1];
}

/**
 * The account key of a caller of SMSGate's integrator API: HTTP Basic with any username (SMSGate's
 * clients send the login there) and the key as password, or `Authorization: Bearer`.
 */
export function integratorKey(req: Request): string | undefined {
  const authorization = req.headers.get('authorization') ?? '';
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(authorization)?.[1];
  if (basic) {
    const decoded = Buffer.from(basic, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    return colon >= 0 ? decoded.slice(colon + 1) : undefined;
  }
  return /^Bearer\s+(\S+)\s*$/i.exec(authorization)?.[1];
}

/**
 * SMSGate's clients read 401 with a message: an account key of ours (sk_…) or a JWT issued by
 * POST /3rdparty/v1/auth/token (as Bearer) opens this surface.
 */
async function authenticateIntegrator(db: Database, req: Request): Promise<AccountPrincipal> {
  const refuse = (detail: string) =>
    new DomainError('UNAUTHENTICATED', detail, { headers: { 'WWW-Authenticate': 'Basic realm="Simgate"' } });
  const key = integratorKey(req);
  if (!key)
    throw refuse(
      'Send your Simgate API key (sk_…) as the HTTP Basic password (any username) or as a Bearer token, or a JWT as Bearer.',
    );
  if (/^Bearer\s/i.test(req.headers.get('authorization') ?? '') && looksLikeJwt(key)) {
    const holder = await principalForJwt(db, key);
    if (!holder) throw refuse('The token is invalid, expired or revoked, or its API key is revoked.');
    takeKeyToken(holder.keyId ?? holder.accountId);
    return holder;
  }
  const principal = await principalForKey(db, key);
  if (principal?.kind !== 'account') throw refuse('The API key is unknown or revoked, or is not an account key.');
  takeKeyToken(principal.keyId ?? principal.accountId);
  touchLastUsed(db, principal);
  return principal;
}

/** Step one of every route: who is calling, and may that kind of caller use this route. */
export async function authenticate<M extends AuthMode>(db: Database, req: Request, mode: M): Promise<PrincipalFor<M>> {
  if (mode === 'none') return null as PrincipalFor<M>;
  if (mode === 'integrator') return (await authenticateIntegrator(db, req)) as PrincipalFor<M>;
  if (mode === 'twilio') {
    const principal = await authenticateTwilio(db, req);
    // The Auth Token is the account's one key on this surface: its own bucket.
    takeKeyToken(`twilio:${principal.accountId}`);
    return principal as PrincipalFor<M>;
  }
  const key = presentedKey(req);
  let principal: Principal | null;
  if (key) {
    principal = await principalForKey(db, key);
    if (!principal) throw unauthenticated('The API key is unknown or revoked.');
    takeKeyToken(principal.kind === 'account' ? (principal.keyId ?? principal.accountId) : principal.deviceId);
    touchLastUsed(db, principal);
  } else {
    principal = await sessionPrincipal(req);
    if (!principal) throw unauthenticated('Send an API key in the X-API-Key header.');
    assertSameOrigin(req);
  }
  if (mode === 'account' && principal.kind !== 'account') {
    throw new DomainError('WRONG_KEY_KIND', 'This operation takes an account API key (sk_…), not a device key.');
  }
  if (mode === 'device' && principal.kind !== 'device') {
    throw new DomainError('WRONG_KEY_KIND', 'This operation takes a device key (dk_…), not an account key.');
  }
  return principal as PrincipalFor<M>;
}
