import type { Database, Executor, Transaction } from '@/db';
import { findAccountById } from '@/lib/accounts/lookup';
import { emailAddress } from '@/lib/accounts/schemas';
import { recordAudit } from '@/lib/audit/record';
import { config } from '@/lib/config';
import { signInCodeEmail } from '@/lib/email/messages';
import { sendAfterCommit } from '@/lib/email/send';
import { DomainError } from '@/lib/errors';
import { acceptInvitation, hasPendingInvitation } from '@/lib/members/invitations';
import { type Membership, membershipsOf } from '@/lib/members/lookup';
import { type SecondFactorUsed, signInNeedsSecondFactor, signInSecondFactor } from '@/lib/members/two-factor';
import { ipBucket } from '@/lib/rate-limit/client-ip';
import { consumeRateLimits } from '@/lib/rate-limit/consume';
import { withTransaction } from '@/lib/transactions';
import { iso } from '@/lib/wire';
import { CODE_LIFETIME_SECONDS, consumeCode, issueCode, spendCode } from './codes';
import { principalForKey } from './key-lookup';
import { isPlausibleKey, KEY_PREFIX_LENGTH } from './keys';

const SIGN_IN_IP_WINDOW_SECONDS = 3600;

/**
 * Emails a one-time sign-in code when the email is a member of an account or has a pending invitation
 * to one, without telling whether it is: both cases count against the same limits, do the same
 * database work (a code is issued either way; one for an email without an account is never sent, and
 * opens nothing) and get the same answer at the same speed, since the email goes out after the
 * commit, off the request's path, and a failure to send it is only logged.
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
    const invited = !membership && (await hasPendingInvitation(tx, email));
    const { code, expiresAt } = await issueCode(tx, { purpose: 'sign_in', email });
    return {
      answer: { status: 'code_sent' as const, expires_at: iso(expiresAt) ?? '' },
      mail: membership || invited ? signInCodeEmail(email, code, CODE_LIFETIME_SECONDS) : undefined,
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
/** Thrown when the code is right but the invitation signed in with cannot be accepted. */
export const INVITATION_REFUSED_ERROR = 'InvitationRefused';
/** The email code is right, and the member signs in with a second factor too: the page asks for it. */
export const TWO_FACTOR_REQUIRED_ERROR = 'TwoFactorRequired';
/** The second factor given is neither a current code of the member's app nor an unused recovery code. */
export const TWO_FACTOR_INVALID_ERROR = 'TwoFactorInvalid';
/** The member's second-factor attempts are spent for now (lib/members/two-factor.ts). */
export const TWO_FACTOR_RATE_LIMITED_ERROR = 'TwoFactorRateLimited';

type EmailCodeOutcome = { ok: true; membership: Membership | undefined } | { ok: false; error: string | null };

/**
 * The `email-code` provider: the account of an email whose newest sign-in code matches. A wrong
 * code is null (next-auth's CredentialsSignin); an expired or burnt one throws CodeExpired.
 * With `invitation` (the token of an invitation link), the email joins that account in the transaction
 * that consumes the code, and the session opens on it: a person with no account anywhere joins this way.
 * An invitation that cannot be accepted (another email's, expired, revoked, used) throws
 * InvitationRefused and leaves the code unused.
 *
 * A member with two-factor sign-in on also gives `totp`: a code of their authenticator or a recovery
 * code. Without it, a right email code throws TwoFactorRequired and stays unused, so the same code
 * signs in once the second factor comes; a wrong second factor throws TwoFactorInvalid (each attempt
 * counts against the member's limit: TwoFactorRateLimited) and leaves the email code unused too. A
 * membership an invitation makes has no second factor yet.
 */
export async function authorizeEmailCode(
  executor: Executor,
  credentials: { email?: unknown; code?: unknown; invitation?: unknown; totp?: unknown },
  context: SignInContext = { ip: null },
): Promise<SignedInUser | null> {
  const email = emailAddress.safeParse(credentials.email);
  const code = typeof credentials.code === 'string' ? credentials.code.trim() : '';
  const invitation = typeof credentials.invitation === 'string' ? credentials.invitation.trim() : '';
  const secondFactor = typeof credentials.totp === 'string' ? credentials.totp.trim().slice(0, 64) : '';
  if (!email.success || !/^\d{6}$/.test(code)) return null;
  const outcome = await withTransaction(executor, async (tx): Promise<EmailCodeOutcome> => {
    // The account signed in to first (lib/members/lookup.ts; the header switches to the others), or,
    // with an invitation, the invited one, joined once the code is right.
    let [membership]: Array<Membership | undefined> = await membershipsOf(tx, email.data);
    const needsSecondFactor =
      membership && !invitation ? await signInNeedsSecondFactor(tx, membership.memberId) : false;
    const check = await consumeCode(tx, { purpose: 'sign_in', email: email.data }, code, { keep: needsSecondFactor });
    if (check.ok && invitation) membership = await joinByInvitation(tx, invitation, email.data, context);
    // Entries for accounts only: an unknown email leaves no trace (and has nobody to show it to).
    const audit = (action: 'session.signed_in' | 'session.sign_in_failed', details: Record<string, unknown>) =>
      membership
        ? recordAudit(tx, {
            accountId: membership.accountId,
            action,
            details: { method: 'email_code', ...details },
            actor:
              action === 'session.signed_in'
                ? { kind: 'session', label: membership.email, ip: context.ip, memberId: membership.memberId }
                : { kind: 'anonymous', label: membership.email, ip: context.ip },
          })
        : undefined;
    if (!check.ok) {
      await audit('session.sign_in_failed', { reason: check.failure });
      return { ok: false, error: check.failure === 'CODE_EXPIRED' ? CODE_EXPIRED_ERROR : null };
    }
    if (membership && needsSecondFactor) {
      if (!secondFactor) return { ok: false, error: TWO_FACTOR_REQUIRED_ERROR };
      const used = await secondFactorOrLimited(tx, membership.memberId, secondFactor);
      if (used === 'limited' || used === null) {
        await audit('session.sign_in_failed', { reason: used === null ? 'INVALID_SECOND_FACTOR' : 'RATE_LIMITED' });
        return { ok: false, error: used === null ? TWO_FACTOR_INVALID_ERROR : TWO_FACTOR_RATE_LIMITED_ERROR };
      }
      await spendCode(tx, check.id);
      await audit('session.signed_in', { second_factor: used });
      if (used === 'recovery_code') {
        await recordAudit(tx, {
          accountId: membership.accountId,
          action: 'two_factor.recovery_code_used',
          target: membership.memberId,
          actor: { kind: 'session', label: membership.email, ip: context.ip },
        });
      }
      return { ok: true, membership };
    }
    await audit('session.signed_in', {});
    return { ok: true, membership };
  });
  if (!outcome.ok) {
    if (outcome.error) throw new Error(outcome.error);
    return null;
  }
  const { membership } = outcome;
  return membership
    ? { id: membership.accountId, email: membership.email, keyId: null, memberId: membership.memberId }
    : null;
}

async function joinByInvitation(
  tx: Transaction,
  token: string,
  email: string,
  context: SignInContext,
): Promise<Membership> {
  try {
    return await acceptInvitation(tx, token, email, { kind: 'session', label: email, ip: context.ip });
  } catch (error) {
    if (error instanceof DomainError) throw new Error(INVITATION_REFUSED_ERROR);
    throw error;
  }
}

/** The second factor used, null when it is wrong, `limited` when the member's attempts are spent. */
async function secondFactorOrLimited(
  tx: Transaction,
  memberId: string,
  given: string,
): Promise<SecondFactorUsed | null | 'limited'> {
  try {
    return await signInSecondFactor(tx, memberId, given);
  } catch (error) {
    if (error instanceof DomainError && error.code === 'RATE_LIMITED') return 'limited';
    throw error;
  }
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
