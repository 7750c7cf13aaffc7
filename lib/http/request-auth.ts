import type { Database } from '@/db';
import { principalForKey, touchLastUsed } from '@/lib/auth/key-lookup';
import type { AccountPrincipal, DevicePrincipal, Principal } from '@/lib/auth/principal';
import { sessionPrincipal } from '@/lib/auth/session';
import { config } from '@/lib/config';
import { DomainError } from '@/lib/errors';
import { takeKeyToken } from '@/lib/rate-limit/key-bucket';
import { ADAPTER_AUTH_MODES, type AdapterAuthMode, authStrategies, presentedKey } from './credentials';

/**
 * `integrator`: SMSGate's integrator API, an account key as HTTP Basic password or Bearer token, or one of its JWTs as Bearer.
 * `twilio`: the Twilio-compatible API, HTTP Basic with the account's Account SID and Auth Token.
 */
export {
  ADAPTER_AUTH_MODES,
  type AdapterAuthMode,
  type AuthStrategy,
  integratorKey,
  presentedKey,
  registerAuthStrategy,
  registeredAuthModes,
} from './credentials';

export type AuthMode = 'none' | 'account' | 'device' | 'any' | AdapterAuthMode;

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

/** Step one of every route: who is calling, and may that kind of caller use this route. */
export async function authenticate<M extends AuthMode>(db: Database, req: Request, mode: M): Promise<PrincipalFor<M>> {
  if (mode === 'none') return null as PrincipalFor<M>;
  if ((ADAPTER_AUTH_MODES as readonly AuthMode[]).includes(mode)) {
    return (await authStrategies.get(mode as AdapterAuthMode)(db, req)) as PrincipalFor<M>;
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
