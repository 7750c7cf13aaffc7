import type { Database } from '@/db';
import { principalForKey, touchLastUsed } from '@/lib/auth/key-lookup';
import type { AccountPrincipal, DevicePrincipal, Principal } from '@/lib/auth/principal';
import { sessionPrincipal } from '@/lib/auth/session';
import { config } from '@/lib/config';
import { DomainError } from '@/lib/errors';
import { takeKeyToken } from '@/lib/rate-limit/key-bucket';
import { registry } from '@/lib/registry';

/**
 * `integrator`: SMSGate's integrator API, an account key as HTTP Basic password or Bearer token, or one of its JWTs as Bearer.
 * `twilio`: the Twilio-compatible API, HTTP Basic with the account's Account SID and Auth Token.
 */
export type AuthMode = 'none' | 'account' | 'device' | 'any' | AdapterAuthMode;

/** The modes whose credentials an adapter reads: it registers how (registerAuthStrategy). */
export const ADAPTER_AUTH_MODES = ['integrator', 'twilio'] as const;
export type AdapterAuthMode = (typeof ADAPTER_AUTH_MODES)[number];

/**
 * How an adapter authenticates its callers: the account the request's credentials open, or a thrown
 * UNAUTHENTICATED. It takes the caller's rate-limit token itself (it knows which key was used).
 */
export type AuthStrategy = (db: Database, req: Request) => Promise<AccountPrincipal>;

const authStrategies = registry<AdapterAuthMode, AuthStrategy>('auth strategy');

/** Called by the adapter of `mode` (lib/protocols/register.ts): the domain does not import adapters. */
export function registerAuthStrategy(mode: AdapterAuthMode, strategy: AuthStrategy): void {
  authStrategies.register(mode, strategy);
}

/** The modes that have a strategy (test/protocol-registries.test.ts checks every mode has one). */
export function registeredAuthModes(): AdapterAuthMode[] {
  return authStrategies.keys();
}

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
