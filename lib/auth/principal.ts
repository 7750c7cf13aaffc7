import type { DeviceStatus, MemberRole } from '@/db/schema';

/** Who is calling: an account (by API key or dashboard session) or a device (by device key). */
export type AccountPrincipal = {
  kind: 'account';
  accountId: string;
  /** The API key used; null for a dashboard session. */
  keyId: string | null;
  via: 'api_key' | 'session';
  /** The signed-in email, for a dashboard session (the audit log names it). */
  email?: string;
  /** The member signed in, for a dashboard session opened by email code. */
  memberId?: string;
  /**
   * What the caller may do, as a member of this role may (lib/members/roles.ts): the member's role for a
   * session, the key's for a key that has one. Absent: everything (a key without a role).
   */
  role?: MemberRole;
  /**
   * A session of a member who has no second factor in an account that requires one: routes refuse it
   * (403 FORBIDDEN) but those that declare `allowPendingTwoFactor` (enrolling, signing out).
   */
  twoFactorPending?: true;
  /**
   * A JWT of SMSGate's integrator API (lib/protocols/smsgate-api/jwt.ts), issued under `keyId`:
   * its id, the scopes it grants and when it expires (Unix seconds). Absent for a key or a session,
   * which hold every scope.
   */
  token?: { jti: string; scopes: readonly string[]; originalScopes: readonly string[]; exp: number };
};

export type DevicePrincipal = {
  kind: 'device';
  deviceId: string;
  accountId: string | null;
  phoneNumber: string;
  status: DeviceStatus;
};

export type Principal = AccountPrincipal | DevicePrincipal;
