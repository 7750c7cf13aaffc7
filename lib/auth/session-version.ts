import { eq, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { accounts } from '@/db/schema';
import { recordAudit } from '@/lib/audit/record';
import { withTransaction } from '@/lib/transactions';

/**
 * Dashboard sessions are stateless JWTs, so ending one means refusing it: every session carries
 * the account's session version from when it was opened (lib/auth/session.ts refuses any other).
 * There is no per-session revocation: signing out bumps the version too, which ends the account's
 * other browsers' sessions as well. That is the price of making a copied cookie useless after
 * sign-out without keeping a table of revoked sessions.
 */

/** The version a session opened now carries; null when the account is gone. */
export async function currentSessionVersion(executor: Executor, accountId: string): Promise<number | null> {
  const [row] = await executor
    .select({ sessionVersion: accounts.sessionVersion })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  return row ? row.sessionVersion : null;
}

/** Sign-out and "sign out everywhere": every dashboard session of the account ends at once. */
export async function endAllSessions(executor: Executor, accountId: string): Promise<void> {
  await withTransaction(executor, async (tx) => {
    await tx
      .update(accounts)
      .set({ sessionVersion: sql`${accounts.sessionVersion} + 1` })
      .where(eq(accounts.id, accountId));
    await recordAudit(tx, { accountId, action: 'session.ended_all' });
  });
}
