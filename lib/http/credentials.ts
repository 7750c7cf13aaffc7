import type { Database } from '@/db';
import type { AccountPrincipal } from '@/lib/auth/principal';
import { registry } from '@/lib/registry';

// What a request presents, and the strategies adapters register for their own credentials: kept apart
// from request-auth.ts (which reads browser sessions through next-auth), so that an adapter's
// registration, which the ops and worker commands run too, pulls in no part of Next.

/** The modes whose credentials an adapter reads: it registers how (registerAuthStrategy). */
export const ADAPTER_AUTH_MODES = ['integrator', 'twilio'] as const;
export type AdapterAuthMode = (typeof ADAPTER_AUTH_MODES)[number];

/**
 * How an adapter authenticates its callers: the account the request's credentials open, or a thrown
 * UNAUTHENTICATED. It takes the caller's rate-limit token itself (it knows which key was used).
 */
export type AuthStrategy = (db: Database, req: Request) => Promise<AccountPrincipal>;

export const authStrategies = registry<AdapterAuthMode, AuthStrategy>('auth strategy');

/** Called by the adapter of `mode` (lib/protocols/register.ts): the domain does not import adapters. */
export function registerAuthStrategy(mode: AdapterAuthMode, strategy: AuthStrategy): void {
  authStrategies.register(mode, strategy);
}

/** The modes that have a strategy (test/protocol-registries.test.ts checks every mode has one). */
export function registeredAuthModes(): AdapterAuthMode[] {
  return authStrategies.keys();
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
