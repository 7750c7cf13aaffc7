import type { Database, Executor } from '@/db';
import { findAccountById } from '@/lib/accounts/lookup';
import { emailAddress } from '@/lib/accounts/schemas';
import { recordAudit } from '@/lib/audit/record';
import { config } from '@/lib/config';
import { signInCodeEmail } from '@/lib/email/messages';
import { sendAfterCommit } from '@/lib/email/send';
import { membershipsOf } from '@/lib/members/lookup';
import { ipBucket } from '@/lib/rate-limit/client-ip';
import { consumeRateLimits } from '@/lib/rate-limit/consume';
import { withTransaction } from '@/lib/transactions';
import { iso } from '@/lib/wire';
import { CODE_LIFETIME_SECONDS, consumeCode, issueCode } from './codes';
import { principalForKey } from './key-lookup';
import { isPlausibleKey, KEY_PREFIX_LENGTH } from './keys';

const SIGN_IN_IP_WINDOW_SECONDS = 3600;

/**
 * Emails a one-time sign-in code when the email is a member of an account, without telling whether it
 * is: both cases count against the same limits, do the same database work (a code is issued
 * either way; one for an email without an account is never sent, and opens nothing) and get the
 * same answer at the same speed, since the email goes out after the commit, off the request's
 * path, and a failure to send it is only logged.
 */
export async function requestSignInCode(db: Database, email: string, context: { clientIp: string }) {
  const { answer, mail } = await db.transaction(async (tx) => {
    await consumeRateLimits(tx, [
      {
        bucket: `sign-in:${email}`,
        limit: config.verificationRateLimit,
        windowSeconds: config.verificationRateWindowSeconds,
        what: 'sign-in codes for this email',
      },
      {
        bucket: ipBucket('sign-in-ip', context.clientIp),
        limit: config.registerIpRateLimit,
        windowSeconds: SIGN_IN_IP_WINDOW_SECONDS,
        what: 'sign-in codes from this address',
      },
    ]);
    const [membership] = await membershipsOf(tx, email);
    const { code, expiresAt } = await issueCode(tx, { purpose: 'sign_in', email });
    return {
      answer: { status: 'code_sent' as const, expires_at: iso(expiresAt) ?? '' },
      mail: membership ? signInCodeEmail(email, code, CODE_LIFETIME_SECONDS) : undefined,
    };
  });
  if (mail) sendAfterCommit(db, mail);
  return answer;
}

/**
 * What a browser session is made of: the account, and the member an email code signed in or the key
 * the session was opened with.
 */
export type SignedInUser = { id: string; email: string; keyId: string | null; memberId: string | null };

/** Thrown to the sign-in page (next-auth passes the message on as `error`). */
export const CODE_EXPIRED_ERROR = 'CodeExpired';

/**
 * The `email-code` provider: the account of an email whose newest sign-in code matches. A wrong
 * code is null (next-auth's CredentialsSignin); an expired or burnt one throws CodeExpired.
 */
export async function authorizeEmailCode(
  executor: Executor,
  credentials: { email?: unknown; code?: unknown },
  context: SignInContext = { ip: null },
): Promise<SignedInUser | null> {
  const email = emailAddress.safeParse(credentials.email);
  const code = typeof credentials.code === 'string' ? credentials.code.trim() : '';
  if (!email.success || !/^\d{6}$/.test(code)) return null;
  const outcome = await withTransaction(executor, async (tx) => {
    const check = await consumeCode(tx, { purpose: 'sign_in', email: email.data }, code);
    // The account signed in to first (lib/members/lookup.ts); the header switches to the others.
    const [membership] = await membershipsOf(tx, email.data);
    // Entries for accounts only: an unknown email leaves no trace (and has nobody to show it to).
    if (membership) {
      await recordAudit(tx, {
        accountId: membership.accountId,
        action: check.ok ? 'session.signed_in' : 'session.sign_in_failed',
        details: { method: 'email_code', ...(check.ok ? {} : { reason: check.failure }) },
        actor: check.ok
          ? { kind: 'session', label: membership.email, ip: context.ip, memberId: membership.memberId }
          : { kind: 'anonymous', label: membership.email, ip: context.ip },
      });
    }
    return { check, membership };
  });
  if (!outcome.check.ok) {
    if (outcome.check.failure === 'CODE_EXPIRED') throw new Error(CODE_EXPIRED_ERROR);
    return null;
  }
  const { membership } = outcome;
  return membership
    ? { id: membership.accountId, email: membership.email, keyId: null, memberId: membership.memberId }
    : null;
}

/** Where a browser sign-in comes from, for the audit log. */
export type SignInContext = { ip: string | null };

/** The `api-key` provider: a live account key (`sk_…`) opens a session for its account. */
export async function authorizeApiKey(
  db: Database,
  credentials: { key?: unknown },
  context: SignInContext = { ip: null },
): Promise<SignedInUser | null> {
  const key = typeof credentials.key === 'string' ? credentials.key.trim() : '';
  if (!isPlausibleKey(key)) return null;
  const principal = await principalForKey(db, key);
  if (principal?.kind !== 'account' || !principal.keyId) return null;
  const account = await findAccountById(db, principal.accountId);
  if (!account) return null;
  await recordAudit(db, {
    accountId: account.id,
    action: 'session.signed_in',
    details: { method: 'api_key', key_prefix: key.slice(0, KEY_PREFIX_LENGTH) },
    actor: { kind: 'session', label: account.email, ip: context.ip },
  });
  return { id: account.id, email: account.email, keyId: principal.keyId, memberId: null };
}
