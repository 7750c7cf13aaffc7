import { createHash, randomBytes } from 'node:crypto';
import { and, asc, count, eq, sql } from 'drizzle-orm';
import type { Database, Executor } from '@/db';
import { emailAddresses } from '@/db/schema';
import { findAccountById } from '@/lib/accounts/lookup';
import { currentActor } from '@/lib/audit/actor';
import { recordAudit } from '@/lib/audit/record';
import { DomainError, notFound, validationError } from '@/lib/errors';
import { consumeRateLimits } from '@/lib/rate-limit/consume';
import { withTransaction } from '@/lib/transactions';
import { iso } from '@/lib/wire';
import { addressConfirmationEmail } from './messages';
import {
  CONFIRMATION_EMAILS_PER_HOUR,
  CONFIRMATION_LIFETIME_SECONDS,
  type EmailAddressWire,
  MAX_EMAIL_ADDRESSES,
} from './schemas';
import { sendAfterCommit } from './send';

/** Where the confirmation link leads: a page that confirms and says so (app/confirm-email). */
export const CONFIRMATION_PATH = '/confirm-email';

/** How a forwarding rule is refused while its address is not confirmed. */
export const UNCONFIRMED_ADDRESS_MESSAGE =
  'not a confirmed address of this account: add it with POST /api/v1/email-addresses (or in Automation, Email addresses) and open the link emailed to it; the account’s own email needs no confirmation';

type AddressRow = typeof emailAddresses.$inferSelect;

function present(row: AddressRow): EmailAddressWire {
  return {
    id: row.id,
    email: row.email,
    status: row.confirmedAt ? 'confirmed' : 'pending',
    confirmed_at: iso(row.confirmedAt),
    confirmation_expires_at: row.confirmedAt ? null : iso(row.tokenExpiresAt),
    created_at: iso(row.createdAt) ?? '',
  };
}

function hashToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}

async function accountEmailOf(executor: Executor, accountId: string): Promise<string> {
  const account = await findAccountById(executor, accountId);
  if (!account) throw notFound('Account');
  return account.email.toLowerCase();
}

export async function listEmailAddresses(executor: Executor, accountId: string) {
  const rows = await executor
    .select()
    .from(emailAddresses)
    .where(eq(emailAddresses.accountId, accountId))
    .orderBy(asc(emailAddresses.createdAt), asc(emailAddresses.id));
  return { account_email: await accountEmailOf(executor, accountId), data: rows.map(present) };
}

async function addressOf(executor: Executor, accountId: string, id: string): Promise<AddressRow> {
  const [row] = await executor
    .select()
    .from(emailAddresses)
    .where(and(eq(emailAddresses.id, id), eq(emailAddresses.accountId, accountId)));
  if (!row) throw notFound('Email address');
  return row;
}

export async function getEmailAddress(executor: Executor, accountId: string, id: string): Promise<EmailAddressWire> {
  return present(await addressOf(executor, accountId, id));
}

/**
 * Adds a forwarding address and emails it a confirmation link (after the commit), or, for an
 * address still pending, sends a fresh link (the old one stops working). A confirmed address is
 * answered as it is. `created` says whether a row was made.
 */
export async function addEmailAddress(
  db: Database,
  accountId: string,
  email: string,
  context: { origin: string },
): Promise<{ created: boolean; address: EmailAddressWire }> {
  const token = randomBytes(32).toString('base64url');
  const outcome = await db.transaction(async (tx) => {
    if (email === (await accountEmailOf(tx, accountId))) {
      throw validationError(
        'email',
        'this is the account’s sign-in email, which is always allowed without confirmation',
      );
    }
    await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`email_addresses:${accountId}`}, 0))`);
    const [existing] = await tx
      .select()
      .from(emailAddresses)
      .where(and(eq(emailAddresses.accountId, accountId), eq(emailAddresses.email, email)));
    if (existing?.confirmedAt) return { created: false, row: existing, send: false };
    if (!existing) {
      const [held] = await tx
        .select({ n: count() })
        .from(emailAddresses)
        .where(eq(emailAddresses.accountId, accountId));
      if ((held?.n ?? 0) >= MAX_EMAIL_ADDRESSES) {
        throw validationError('email', `an account has at most ${MAX_EMAIL_ADDRESSES} forwarding addresses`);
      }
    }
    await consumeRateLimits(tx, [
      {
        bucket: `email-confirmation:${accountId}`,
        limit: CONFIRMATION_EMAILS_PER_HOUR,
        windowSeconds: 3600,
        what: 'confirmation emails for this account',
      },
    ]);
    const tokenColumns = {
      tokenHash: hashToken(token),
      tokenExpiresAt: sql`now() + make_interval(secs => ${CONFIRMATION_LIFETIME_SECONDS})`,
    };
    const [row] = existing
      ? await tx
          .update(emailAddresses)
          .set(tokenColumns)
          .where(and(eq(emailAddresses.accountId, accountId), eq(emailAddresses.id, existing.id)))
          .returning()
      : await tx
          .insert(emailAddresses)
          .values({ accountId, email, ...tokenColumns })
          .returning();
    if (!row) throw new Error('addEmailAddress: no row written');
    if (!existing)
      await recordAudit(tx, { accountId, action: 'email_address.added', target: row.id, details: { email } });
    return { created: !existing, row, send: true };
  });
  if (outcome.send) {
    const link = `${context.origin}${CONFIRMATION_PATH}?token=${token}`;
    sendAfterCommit(db, addressConfirmationEmail(email, link, CONFIRMATION_LIFETIME_SECONDS / 3600));
  }
  return { created: outcome.created, address: present(outcome.row) };
}

export async function removeEmailAddress(executor: Executor, accountId: string, id: string): Promise<void> {
  await withTransaction(executor, async (tx) => {
    const [deleted] = await tx
      .delete(emailAddresses)
      .where(and(eq(emailAddresses.id, id), eq(emailAddresses.accountId, accountId)))
      .returning();
    if (!deleted) throw notFound('Email address');
    await recordAudit(tx, {
      accountId,
      action: 'email_address.removed',
      target: id,
      details: { email: deleted.email },
    });
  });
}

/**
 * Confirms the address a link's token was made for. Opening a link again answers the same
 * (confirmed); an unknown token is 404, an expired one 410 CODE_EXPIRED.
 */
export async function confirmEmailAddress(
  executor: Executor,
  token: string,
): Promise<{ email: string; status: 'confirmed' }> {
  return withTransaction(executor, async (tx) => {
    // The address by its token first, without a lock (the link names no account); then its row is
    // locked by its account and id, which picks one shard on a Citus database.
    const [found] = await tx
      .select({ id: emailAddresses.id, accountId: emailAddresses.accountId })
      .from(emailAddresses)
      .where(eq(emailAddresses.tokenHash, hashToken(token)));
    if (!found) throw notFound('Confirmation link');
    const [row] = await tx
      .select({
        id: emailAddresses.id,
        accountId: emailAddresses.accountId,
        email: emailAddresses.email,
        confirmedAt: emailAddresses.confirmedAt,
        expired: sql<boolean>`${emailAddresses.tokenExpiresAt} <= now()`,
      })
      .from(emailAddresses)
      .where(
        and(
          eq(emailAddresses.accountId, found.accountId),
          eq(emailAddresses.id, found.id),
          eq(emailAddresses.tokenHash, hashToken(token)),
        ),
      )
      .for('update');
    if (!row) throw notFound('Confirmation link');
    if (!row.confirmedAt) {
      if (row.expired) {
        throw new DomainError(
          'CODE_EXPIRED',
          'This confirmation link has expired: add the address again for a new one.',
        );
      }
      await tx
        .update(emailAddresses)
        .set({ confirmedAt: sql`now()` })
        .where(and(eq(emailAddresses.accountId, row.accountId), eq(emailAddresses.id, row.id)));
      await recordAudit(tx, {
        accountId: row.accountId,
        action: 'email_address.confirmed',
        target: row.id,
        details: { email: row.email },
        actor: { ...currentActor(), label: row.email },
      });
    }
    return { email: row.email, status: 'confirmed' as const };
  });
}

/** Whether the account may forward to `email`: its own sign-in email, or one it confirmed. */
export async function isForwardingAllowed(executor: Executor, accountId: string, email: string): Promise<boolean> {
  const address = email.trim().toLowerCase();
  if (address === (await accountEmailOf(executor, accountId))) return true;
  const [row] = await executor
    .select({ id: emailAddresses.id })
    .from(emailAddresses)
    .where(
      and(
        eq(emailAddresses.accountId, accountId),
        eq(emailAddresses.email, address),
        sql`${emailAddresses.confirmedAt} is not null`,
      ),
    );
  return row !== undefined;
}
