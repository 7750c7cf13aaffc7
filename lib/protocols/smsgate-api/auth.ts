import type { Database } from '@/db';
import { principalForKey, touchLastUsed } from '@/lib/auth/key-lookup';
import type { AccountPrincipal } from '@/lib/auth/principal';
import { DomainError } from '@/lib/errors';
import { integratorKey } from '@/lib/http/credentials';
import { takeKeyToken } from '@/lib/rate-limit/key-bucket';
import { looksLikeJwt, principalForJwt } from './jwt';

/**
 * The `integrator` auth mode (registered with lib/http by lib/protocols/register.ts). SMSGate's
 * clients read 401 with a message: an account key of ours (sk_…) or a JWT issued by
 * POST /3rdparty/v1/auth/token (as Bearer) opens this surface.
 */
export async function authenticateIntegrator(db: Database, req: Request): Promise<AccountPrincipal> {
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
