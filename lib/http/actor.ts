import type { AuditActor } from '@/lib/audit/actor';
import { KEY_PREFIX_LENGTH } from '@/lib/auth/keys';
import type { Principal } from '@/lib/auth/principal';
import { clientIp } from '@/lib/rate-limit/client-ip';
import { integratorKey, presentedKey } from './request-auth';

/**
 * Who the audit log names for a request: the key's visible prefix (never the key), or the
 * session's email and member, with the client address as per-IP limits see it.
 */
export function auditActorOf(principal: Principal | null, req: Request): AuditActor {
  const address = clientIp(req);
  const ip = address === 'unknown' ? null : address;
  if (!principal) return { kind: 'anonymous', label: null, ip };
  if (principal.kind === 'account' && principal.via === 'session') {
    return { kind: 'session', label: principal.email ?? null, ip, memberId: principal.memberId ?? null };
  }
  // A JWT of SMSGate's integrator API is named by its id (lib/protocols/smsgate-api/jwt.ts).
  if (principal.kind === 'account' && principal.token)
    return { kind: 'api_key', label: `jwt:${principal.token.jti}`, ip };
  // SMSGate's integrator clients send the key as the HTTP Basic password.
  const prefix = (presentedKey(req) ?? integratorKey(req))?.slice(0, KEY_PREFIX_LENGTH) ?? null;
  return { kind: principal.kind === 'device' ? 'device' : 'api_key', label: prefix, ip };
}
