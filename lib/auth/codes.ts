import { createHash, randomInt, randomUUID, timingSafeEqual } from 'node:crypto';
import { and, desc, eq, sql } from 'drizzle-orm';
import type { Transaction } from '@/db';
import { type CodePurpose, verificationCodes } from '@/db/schema';
import { DomainError } from '@/lib/errors';

export const CODE_LIFETIME_SECONDS = 600;
export const MAX_WRONG_ATTEMPTS = 5;

/**
 * Whose code it is: a device's (SIM check, email binding; a binding code also records the email
 * it was sent to) or an email's (browser sign-in).
 */
export type CodeSubject =
  | { purpose: Exclude<CodePurpose, 'sign_in'>; deviceId: string; email?: string }
  | { purpose: Extract<CodePurpose, 'sign_in'>; email: string };

export type IssuedCode = { code: string; expiresAt: Date };

// Salting with the row id makes each stored hash useless for any other row.
function hashCode(rowId: string, code: string): string {
  return createHash('sha256').update(`${rowId}:${code}`).digest('hex');
}

/**
 * A new 6-digit code for the subject, stored hashed, alive for 10 minutes. Only the newest
 * code of a subject counts, so issuing one retires the ones before it.
 */
export async function issueCode(tx: Transaction, subject: CodeSubject): Promise<IssuedCode> {
  const id = randomUUID();
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  const [row] = await tx
    .insert(verificationCodes)
    .values({
      id,
      purpose: subject.purpose,
      deviceId: 'deviceId' in subject ? subject.deviceId : null,
      email: subject.email ?? null,
      codeHash: hashCode(id, code),
      expiresAt: sql`now() + make_interval(secs => ${CODE_LIFETIME_SECONDS})`,
    })
    .returning({ expiresAt: verificationCodes.expiresAt });
  if (!row) throw new Error('issueCode: insert returned no row');
  return { code, expiresAt: row.expiresAt };
}

export type CodeFailure = 'INVALID_CODE' | 'CODE_EXPIRED';
export type CodeCheck = { ok: true; id: string; email: string | null } | { ok: false; failure: CodeFailure };

/**
 * Checks a code against the subject's newest one and uses it up when it matches. A wrong code
 * counts an attempt; after 5 wrong attempts the code is burnt and answers CODE_EXPIRED from then
 * on, even to the right code (the caller must ask for a new one, as for an expired code).
 *
 * It returns a failure instead of throwing, so the caller can commit the counted attempt before
 * it answers the error (a throw would roll the count back and allow unlimited guesses).
 * `keep`: a right code is left unused (a sign-in that still needs its second factor), for `spendCode`.
 */
export async function consumeCode(
  tx: Transaction,
  subject: CodeSubject,
  code: string,
  { keep = false }: { keep?: boolean } = {},
): Promise<CodeCheck> {
  const [row] = await tx
    .select({
      id: verificationCodes.id,
      codeHash: verificationCodes.codeHash,
      email: verificationCodes.email,
      failedAttempts: verificationCodes.failedAttempts,
      consumedAt: verificationCodes.consumedAt,
      expired: sql<boolean>`${verificationCodes.expiresAt} <= now()`,
    })
    .from(verificationCodes)
    .where(
      and(
        eq(verificationCodes.purpose, subject.purpose),
        'deviceId' in subject
          ? eq(verificationCodes.deviceId, subject.deviceId)
          : eq(verificationCodes.email, subject.email),
      ),
    )
    .orderBy(desc(verificationCodes.createdAt), desc(verificationCodes.id))
    .limit(1)
    .for('update');
  if (!row || row.consumedAt) return { ok: false, failure: 'INVALID_CODE' };
  if (row.expired || row.failedAttempts >= MAX_WRONG_ATTEMPTS) return { ok: false, failure: 'CODE_EXPIRED' };
  const given = Buffer.from(hashCode(row.id, code), 'hex');
  if (!timingSafeEqual(given, Buffer.from(row.codeHash, 'hex'))) {
    await tx
      .update(verificationCodes)
      .set({ failedAttempts: sql`${verificationCodes.failedAttempts} + 1` })
      .where(eq(verificationCodes.id, row.id));
    return { ok: false, failure: 'INVALID_CODE' };
  }
  if (!keep) await spendCode(tx, row.id);
  return { ok: true, id: row.id, email: row.email };
}

/** Uses up a code that `consumeCode` checked and kept. */
export async function spendCode(tx: Transaction, id: string): Promise<void> {
  await tx.update(verificationCodes).set({ consumedAt: sql`now()` }).where(eq(verificationCodes.id, id));
}

export function codeError(failure: CodeFailure): DomainError {
  return failure === 'CODE_EXPIRED'
    ? new DomainError('CODE_EXPIRED', 'The code has expired or was tried too many times. Ask for a new code.')
    : new DomainError('INVALID_CODE', 'The code is not right. Check it and try again.');
}
