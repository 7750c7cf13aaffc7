import { createHash, randomInt } from 'node:crypto';
import { and, eq, isNull, lt, or, sql } from 'drizzle-orm';
import { Secret, TOTP } from 'otpauth';
import QRCode from 'qrcode';
import type { Database, Executor, Transaction } from '@/db';
import { accounts, members } from '@/db/schema';
import { recordAudit } from '@/lib/audit/record';
import type { AccountPrincipal } from '@/lib/auth/principal';
import { decryptSecret, encryptSecret } from '@/lib/crypto/secret-box';
import { DomainError } from '@/lib/errors';
import { consumeRateLimits, type RateLimit } from '@/lib/rate-limit/consume';
import { withTransaction } from '@/lib/transactions';
import type { TwoFactorStatus } from './two-factor-schemas';

/**
 * Two-factor sign-in: a member may add a TOTP authenticator (RFC 6238: SHA-1, 6 digits, 30 s), and
 * gets 10 single-use recovery codes when it is confirmed. Once on, the email-code sign-in asks for a
 * code of the app or a recovery code before it opens a session (lib/auth/sign-in.ts).
 */
export const TOTP_SECRET_PURPOSE = 'members.totp_secret';
const ISSUER = 'Simgate';
const PERIOD_SECONDS = 30;
/** Codes of the step before and after are accepted too (clock drift). */
const DRIFT_STEPS = 1;
export const RECOVERY_CODE_COUNT = 10;
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const RECOVERY_HALF_LENGTH = 5;

/** Second-factor attempts (sign-in, confirming, turning off) per member: guessing a code is bounded. */
export const SECOND_FACTOR_ATTEMPTS = 10;
export const SECOND_FACTOR_WINDOW_SECONDS = 900;

export function sealTotpSecret(secret: string): string {
  return encryptSecret(secret, TOTP_SECRET_PURPOSE);
}

export function unsealTotpSecret(sealed: string): string {
  return decryptSecret(sealed, TOTP_SECRET_PURPOSE);
}

function totpOf(secretBase32: string, email: string): TOTP {
  return new TOTP({
    issuer: ISSUER,
    label: email,
    algorithm: 'SHA1',
    digits: 6,
    period: PERIOD_SECONDS,
    secret: Secret.fromBase32(secretBase32),
  });
}

function recoveryCodeHash(memberId: string, code: string): string {
  const normalised = code.toLowerCase().replace(/[^a-z0-9]/g, '');
  return createHash('sha256').update(`${memberId}:${normalised}`).digest('hex');
}

function newRecoveryCode(): string {
  const half = () =>
    Array.from({ length: RECOVERY_HALF_LENGTH }, () => RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)]).join('');
  return `${half()}-${half()}`;
}

export function secondFactorLimit(memberId: string): RateLimit {
  return {
    bucket: `second-factor:${memberId}`,
    limit: SECOND_FACTOR_ATTEMPTS,
    windowSeconds: SECOND_FACTOR_WINDOW_SECONDS,
    what: 'two-factor codes for this member',
  };
}

/** The member a two-factor route acts for: only a member's own session has one. */
function signedInMember(principal: AccountPrincipal): string {
  if (principal.via !== 'session' || !principal.memberId) {
    throw new DomainError(
      'FORBIDDEN',
      'Two-factor sign-in belongs to a member: sign in to the dashboard by email code to change it.',
    );
  }
  return principal.memberId;
}

type MemberTwoFactor = {
  email: string;
  secretSealed: string | null;
  enabledAt: Date | null;
  lastStep: number | null;
  recoveryHashes: string[] | null;
  required: boolean;
};

async function memberTwoFactor(
  executor: Executor,
  accountId: string,
  memberId: string,
  lock = false,
): Promise<MemberTwoFactor> {
  const query = executor
    .select({
      email: members.email,
      secretSealed: members.totpSecretEncrypted,
      enabledAt: members.totpEnabledAt,
      lastStep: members.totpLastStep,
      recoveryHashes: members.totpRecoveryCodeHashes,
      required: accounts.requireTwoFactor,
    })
    .from(members)
    .innerJoin(accounts, eq(accounts.id, members.accountId))
    .where(and(eq(members.id, memberId), eq(members.accountId, accountId)));
  const [row] = await (lock ? query.for('update', { of: members }) : query);
  if (!row) throw new DomainError('NOT_FOUND', 'No such member.');
  return row;
}

/** Whether the member must give a second factor to sign in. */
export async function signInNeedsSecondFactor(executor: Executor, memberId: string): Promise<boolean> {
  const [row] = await executor
    .select({ enabledAt: members.totpEnabledAt })
    .from(members)
    .where(eq(members.id, memberId));
  return Boolean(row?.enabledAt);
}

export type SecondFactorUsed = 'totp' | 'recovery_code';

/**
 * Checks a code of the member's authenticator, or one of their recovery codes, and uses it: a TOTP code
 * is accepted once (and no code of an earlier step after it), a recovery code leaves the member's list.
 * Null when it is neither. Each use is one statement conditioned on the state it read, so two requests
 * with one code cannot both pass.
 */
async function spendSecondFactor(
  executor: Executor,
  memberId: string,
  member: Pick<MemberTwoFactor, 'email' | 'secretSealed' | 'lastStep' | 'recoveryHashes'>,
  given: string,
  { recoveryCodes }: { recoveryCodes: boolean },
): Promise<SecondFactorUsed | null> {
  const code = given.trim();
  if (/^\d{6}$/.test(code)) {
    if (!member.secretSealed) return null;
    const totp = totpOf(unsealTotpSecret(member.secretSealed), member.email);
    const now = Date.now();
    const delta = totp.validate({ token: code, timestamp: now, window: DRIFT_STEPS });
    if (delta === null) return null;
    const step = Math.floor(now / 1000 / PERIOD_SECONDS) + delta;
    const used = await executor
      .update(members)
      .set({ totpLastStep: step })
      .where(and(eq(members.id, memberId), or(isNull(members.totpLastStep), lt(members.totpLastStep, step))))
      .returning({ id: members.id });
    return used.length > 0 ? 'totp' : null;
  }
  if (!recoveryCodes) return null;
  const hash = recoveryCodeHash(memberId, code);
  if (!member.recoveryHashes?.includes(hash)) return null;
  const used = await executor
    .update(members)
    .set({ totpRecoveryCodeHashes: sql`array_remove(${members.totpRecoveryCodeHashes}, ${hash})` })
    .where(and(eq(members.id, memberId), sql`${hash} = any(${members.totpRecoveryCodeHashes})`))
    .returning({ id: members.id });
  return used.length > 0 ? 'recovery_code' : null;
}

/**
 * The second step of a sign-in: counts the attempt against the member's limit (429 RATE_LIMITED when
 * spent), then checks and uses the code. The caller commits the count and the audit entry whatever the
 * outcome.
 */
export async function signInSecondFactor(
  executor: Executor,
  memberId: string,
  given: string,
): Promise<SecondFactorUsed | null> {
  return withTransaction(executor, async (tx) => {
    // The member's row, then the limit's lock: the order every second-factor check takes them in.
    const [member] = await tx
      .select({
        email: members.email,
        secretSealed: members.totpSecretEncrypted,
        lastStep: members.totpLastStep,
        recoveryHashes: members.totpRecoveryCodeHashes,
        enabledAt: members.totpEnabledAt,
      })
      .from(members)
      .where(eq(members.id, memberId))
      .for('update');
    await consumeRateLimits(tx, [secondFactorLimit(memberId)]);
    if (!member?.enabledAt) return null;
    return spendSecondFactor(tx, memberId, member, given, { recoveryCodes: true });
  });
}

export async function twoFactorStatus(executor: Executor, principal: AccountPrincipal): Promise<TwoFactorStatus> {
  const member = await memberTwoFactor(executor, principal.accountId, signedInMember(principal));
  return {
    enabled: Boolean(member.enabledAt),
    pending: Boolean(member.secretSealed && !member.enabledAt),
    required: member.required,
    recovery_codes_left: member.enabledAt ? (member.recoveryHashes?.length ?? 0) : 0,
  };
}

/**
 * Starts (or starts over) adding an authenticator: a new secret, kept sealed and pending until a code
 * of it confirms it. Refused while one is on: turning it off comes first.
 */
export async function startEnrolment(db: Database, principal: AccountPrincipal) {
  const memberId = signedInMember(principal);
  const secret = new Secret({ size: 20 }).base32;
  const email = await withTransaction(db, async (tx) => {
    const member = await memberTwoFactor(tx, principal.accountId, memberId, true);
    if (member.enabledAt) {
      throw new DomainError('CONFLICT', 'Two-factor sign-in is already on. Turn it off before adding another app.');
    }
    await tx
      .update(members)
      .set({ totpSecretEncrypted: sealTotpSecret(secret), totpLastStep: null, totpRecoveryCodeHashes: null })
      .where(and(eq(members.id, memberId), eq(members.accountId, principal.accountId)));
    return member.email;
  });
  const otpauthUrl = totpOf(secret, email).toString();
  return {
    secret,
    otpauth_url: otpauthUrl,
    qr_data_url: await QRCode.toDataURL(otpauthUrl, { errorCorrectionLevel: 'M', margin: 2, width: 240 }),
  };
}

/**
 * Checks a code in a transaction that commits, and when it is wrong records the failure (committed
 * too) before answering 400 INVALID_CODE: a throw inside would roll both back. `attempt` refuses what
 * no code could change first, then counts the attempt (`countAttempt`), then checks the code.
 */
async function checkedAttempt<T>(
  db: Database,
  principal: AccountPrincipal,
  during: 'confirm' | 'disable',
  attempt: (tx: Transaction, memberId: string, countAttempt: () => Promise<void>) => Promise<T | null>,
): Promise<T> {
  const memberId = signedInMember(principal);
  const outcome = await withTransaction(db, async (tx) => {
    const result = await attempt(tx, memberId, () => consumeRateLimits(tx, [secondFactorLimit(memberId)]));
    if (result === null) {
      await recordAudit(tx, {
        accountId: principal.accountId,
        action: 'two_factor.check_failed',
        target: memberId,
        details: { during },
      });
    }
    return result;
  });
  if (outcome === null) throw new DomainError('INVALID_CODE', 'The code is not right. Check it and try again.');
  return outcome;
}

/** Turns two-factor on with the first code of the pending secret; answers the 10 recovery codes, shown once. */
export async function confirmEnrolment(db: Database, principal: AccountPrincipal, code: string) {
  return checkedAttempt(db, principal, 'confirm', async (tx, memberId, countAttempt) => {
    const member = await memberTwoFactor(tx, principal.accountId, memberId, true);
    if (member.enabledAt) throw new DomainError('CONFLICT', 'Two-factor sign-in is already on.');
    if (!member.secretSealed) {
      throw new DomainError(
        'CONFLICT',
        'No authenticator is being added: start with POST /api/v1/auth/two-factor/enrol.',
      );
    }
    await countAttempt();
    if (!(await spendSecondFactor(tx, memberId, member, code, { recoveryCodes: false }))) return null;
    const recoveryCodes = Array.from({ length: RECOVERY_CODE_COUNT }, newRecoveryCode);
    await tx
      .update(members)
      .set({
        totpEnabledAt: sql`now()`,
        totpRecoveryCodeHashes: recoveryCodes.map((one) => recoveryCodeHash(memberId, one)),
      })
      .where(and(eq(members.id, memberId), eq(members.accountId, principal.accountId)));
    await recordAudit(tx, { accountId: principal.accountId, action: 'two_factor.enabled', target: memberId });
    return { recovery_codes: recoveryCodes };
  });
}

/** Turns two-factor off, with a code of the app or a recovery code; refused while the account requires it. */
export async function disableTwoFactor(db: Database, principal: AccountPrincipal, code: string): Promise<void> {
  await checkedAttempt(db, principal, 'disable', async (tx, memberId, countAttempt) => {
    const member = await memberTwoFactor(tx, principal.accountId, memberId, true);
    if (!member.enabledAt) throw new DomainError('CONFLICT', 'Two-factor sign-in is not on.');
    if (member.required) {
      throw new DomainError('CONFLICT', 'The account requires two-factor sign-in: an owner must lift that first.');
    }
    await countAttempt();
    const used = await spendSecondFactor(tx, memberId, member, code, { recoveryCodes: true });
    if (!used) return null;
    await tx
      .update(members)
      .set({ totpSecretEncrypted: null, totpEnabledAt: null, totpLastStep: null, totpRecoveryCodeHashes: null })
      .where(and(eq(members.id, memberId), eq(members.accountId, principal.accountId)));
    await recordAudit(tx, {
      accountId: principal.accountId,
      action: 'two_factor.disabled',
      target: memberId,
      details: { with: used },
    });
    return true;
  });
}

export async function securitySettings(executor: Executor, accountId: string) {
  const [row] = await executor
    .select({ require_two_factor: accounts.requireTwoFactor })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  if (!row) throw new DomainError('NOT_FOUND', 'No such account.');
  return row;
}

/**
 * Whether every member must sign in with a second factor: owners only (or a key without a role). An
 * owner signed in by email turns it on only once their own is on, so the switch never locks its
 * author out of the settings they just changed.
 */
export async function updateSecuritySettings(
  db: Database,
  principal: AccountPrincipal,
  change: { require_two_factor: boolean },
) {
  const owner = principal.role === 'owner' || (principal.via === 'api_key' && !principal.role);
  if (!owner) throw new DomainError('FORBIDDEN', 'Only an owner may change whether two-factor sign-in is required.');
  return withTransaction(db, async (tx) => {
    if (change.require_two_factor && principal.memberId) {
      const self = await memberTwoFactor(tx, principal.accountId, principal.memberId);
      if (!self.enabledAt) {
        throw new DomainError('CONFLICT', 'Turn on two-factor sign-in for yourself before requiring it of everyone.');
      }
    }
    const [row] = await tx
      .update(accounts)
      .set({ requireTwoFactor: change.require_two_factor })
      .where(eq(accounts.id, principal.accountId))
      .returning({ require_two_factor: accounts.requireTwoFactor });
    if (!row) throw new DomainError('NOT_FOUND', 'No such account.');
    await recordAudit(tx, {
      accountId: principal.accountId,
      action: 'security_settings.updated',
      details: { require_two_factor: change.require_two_factor },
    });
    return row;
  });
}
