import { and, eq, type SQL, sql } from 'drizzle-orm';
import { type Database, type Executor, queryRows, withQueryOrigin } from '@/db';
import { accountByAccountWhenDistributed } from '@/db/distributed';
import { emailOutbox } from '@/db/schema';
import { log } from '@/lib/log';
import { type Email, transmitEmail } from './send';

/**
 * The email outbox (automation forwards and account alerts). The automation's transaction writes the email (enqueueEmail) and
 * NOTIFYs at commit; a worker claims due rows (FOR UPDATE SKIP LOCKED, committed at once, so no
 * transaction stays open), talks SMTP holding no connection, then records the outcome only if its
 * claim still holds. A worker that dies mid-send leaves a claim that runs out: at-least-once.
 */

/** Channel that wakes the email workers: NOTIFY goes out when (and only if) the enqueuing transaction commits. */
export const EMAIL_OUTBOX_CHANNEL = 'simgate_email_outbox';

const SECOND = 1000;
const MINUTE = 60 * SECOND;

/** Waits before each retry; after the last one the email is given up (`failed`). */
export const EMAIL_RETRY_DELAYS_MS = [30 * SECOND, 2 * MINUTE, 10 * MINUTE, 30 * MINUTE, 60 * MINUTE] as const;
export const MAX_EMAIL_ATTEMPTS = EMAIL_RETRY_DELAYS_MS.length + 1;

/** A claim outlives the SMTP timeouts (lib/email/send.ts) several times over. */
const CLAIM_MS = 5 * MINUTE;
export const EMAIL_BATCH_SIZE = 10;

/** An automation forward names its inbound message and counterpart; an alert email names neither. */
export type OutboxEmail = Email & { accountId: string; inboundMessageId?: string | null; counterpart?: string | null };

/** Writes an email to the outbox in the caller's transaction; it goes out after the commit. */
export async function enqueueEmail(tx: Executor, email: OutboxEmail): Promise<string> {
  const [row] = await tx
    .insert(emailOutbox)
    .values({
      accountId: email.accountId,
      inboundMessageId: email.inboundMessageId ?? null,
      counterpart: email.counterpart ?? null,
      to: email.to,
      subject: email.subject,
      text: email.text,
    })
    .returning({ id: emailOutbox.id });
  if (!row) throw new Error('enqueueEmail: insert returned no row');
  await tx.execute(sql`select pg_notify(${EMAIL_OUTBOX_CHANNEL}, '')`);
  return row.id;
}

/** A claimed email; `accountId` is named by every statement on it after the claim. */
type Claim = { id: string; accountId: string; attemptCount: number; lockedUntil: Date };

/** Claims up to `limit` due pending emails for CLAIM_MS, by the database's clock. */
export async function claimDueEmails(db: Database, limit = EMAIL_BATCH_SIZE): Promise<Claim[]> {
  return withQueryOrigin('task:email claim', async () => {
    const rows: ClaimedRow[] = [];
    await accountByAccountWhenDistributed(
      db,
      () => accountsWithDueEmails(db, limit),
      async (accountId, room) => {
        const where = accountId ? sql`account_id = ${accountId}::uuid` : sql`true`;
        const claimed = await queryRows<ClaimedRow>(db, claimStatement(where, room));
        rows.push(...claimed);
        return claimed.length;
      },
      limit,
    );
    return rows.map((row) => ({
      id: row.id,
      accountId: row.account_id,
      attemptCount: Number(row.attempt_count),
      lockedUntil: new Date(row.locked_until),
    }));
  });
}

type ClaimedRow = { id: string; account_id: string; attempt_count: number; locked_until: Date | string };

/** The claim of up to `limit` due emails among those `where` picks, oldest due first. */
function claimStatement(where: SQL, limit: number): SQL {
  return sql`
    update email_outbox
    set locked_until = now() + make_interval(secs => ${CLAIM_MS / SECOND})
    where ${where} and id in (
      select id from email_outbox
      where ${where} and status = 'pending'
        and next_attempt_at <= now()
        and (locked_until is null or locked_until < now())
      order by next_attempt_at
      limit ${limit}
      for update skip locked
    )
    returning id, account_id, attempt_count, locked_until`;
}

/** The accounts with due emails, oldest due first, read without a lock (a Citus database's claim). */
async function accountsWithDueEmails(db: Database, limit: number): Promise<string[]> {
  const rows = await queryRows<{ account_id: string }>(
    db,
    sql`select account_id from email_outbox
        where status = 'pending' and next_attempt_at <= now() and (locked_until is null or locked_until < now())
        group by account_id order by min(next_attempt_at) limit ${limit}`,
  );
  return rows.map((row) => row.account_id);
}

/** A refusal the server means for good (5xx) is not retried; a 4xx or a network error is. */
function isPermanent(error: unknown): boolean {
  const code = (error as { responseCode?: unknown }).responseCode;
  return typeof code === 'number' && code >= 500;
}

function errorText(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 500);
}

export type EmailOutcome = 'sent' | 'retry' | 'failed' | 'superseded';

/** Sends one claimed email and records the outcome. */
export async function sendClaimedEmail(db: Database, claim: Claim): Promise<EmailOutcome | undefined> {
  return withQueryOrigin('task:email delivery', async () => {
    const [email] = await db
      .select({ to: emailOutbox.to, subject: emailOutbox.subject, text: emailOutbox.text })
      .from(emailOutbox)
      .where(and(eq(emailOutbox.accountId, claim.accountId), eq(emailOutbox.id, claim.id)));
    // Deleted (with its account or message) since the claim.
    if (!email) return undefined;
    let error: unknown;
    try {
      await transmitEmail(db, email);
    } catch (caught) {
      error = caught ?? new Error('unknown error');
    }
    const attempts = claim.attemptCount + 1;
    const delay = EMAIL_RETRY_DELAYS_MS[attempts - 1];
    const outcome: EmailOutcome =
      error === undefined ? 'sent' : isPermanent(error) || delay === undefined ? 'failed' : 'retry';
    if (error !== undefined) {
      log.warn({ err: error, emailId: claim.id, to: email.to, attempts, outcome }, 'automation email not sent');
    }
    const moved = await db
      .update(emailOutbox)
      .set({
        status: outcome === 'retry' ? 'pending' : outcome,
        attemptCount: attempts,
        lockedUntil: null,
        lastError: error === undefined ? null : errorText(error),
        ...(outcome === 'sent' ? { sentAt: sql`now()` } : {}),
        ...(outcome === 'retry' ? { nextAttemptAt: sql`now() + make_interval(secs => ${(delay ?? 0) / SECOND})` } : {}),
      })
      .where(
        and(
          eq(emailOutbox.accountId, claim.accountId),
          eq(emailOutbox.id, claim.id),
          eq(emailOutbox.lockedUntil, claim.lockedUntil),
        ),
      )
      .returning({ id: emailOutbox.id });
    return moved.length > 0 ? outcome : 'superseded';
  });
}

/** How long sent and failed emails are kept (the hourly limits look back one hour). */
export const OUTBOX_RETENTION_DAYS = 7;

/** Deletes sent and failed emails past OUTBOX_RETENTION_DAYS; answers how many. */
export async function pruneEmailOutbox(db: Database): Promise<number> {
  return withQueryOrigin('task:email outbox pruning', async () => {
    const deleted = await queryRows<{ id: string }>(
      db,
      sql`delete from email_outbox
        where status <> 'pending' and created_at < now() - make_interval(days => ${OUTBOX_RETENTION_DAYS})
        returning id`,
    );
    return deleted.length;
  });
}

/** One claim-and-send pass: the emails due now, sent concurrently. */
export async function runEmailBatch(db: Database, limit = EMAIL_BATCH_SIZE): Promise<EmailOutcome[]> {
  const claims = await claimDueEmails(db, limit);
  const settled = await Promise.allSettled(claims.map((claim) => sendClaimedEmail(db, claim)));
  const outcomes: EmailOutcome[] = [];
  for (const result of settled) {
    if (result.status === 'rejected') log.error({ err: result.reason }, 'automation email could not be recorded');
    else if (result.value) outcomes.push(result.value);
  }
  return outcomes;
}
