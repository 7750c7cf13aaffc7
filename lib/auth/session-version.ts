import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { accounts, members } from '@/db/schema';
import { recordAudit } from '@/lib/audit/record';
import { withTransaction } from '@/lib/transactions';

/**
 * Dashboard sessions are stateless JWTs, so ending one means refusing it: every session carries
 * the account's session version from when it was opened (lib/auth/session.ts refuses any other).
 * A member's sessions carry their member's version as well. There is no per-session revocation:
 * signing out bumps the member's version, which ends that member's other browsers' sessions as well
 * (a session an API key opened bumps the account's, ending every session of the account). That is
 * the price of making a copied cookie useless after sign-out without keeping a table of revoked
 * sessions.
 */

/** The version a session opened now carries; null when the account is gone. */
export async function currentSessionVersion(executor: Executor, accountId: string): Promise<number | null> {
  const [row] = await executor
    .select({ sessionVersion: accounts.sessionVersion })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  return row ? row.sessionVersion : null;
}

/**
 * Sign-out and "sign out everywhere": every dashboard session of the member ends at once, or, for a
 * caller that is no member (an API key, or a session a key opened), every session of the account.
 */
export async function endAllSessions(
  executor: Executor,
  caller: { accountId: string; memberId?: string | undefined },
): Promise<void> {
  const { accountId, memberId } = caller;
  await withTransaction(executor, async (tx) => {
    if (memberId) {
      await tx
        .update(members)
        .set({ sessionVersion: sql`${members.sessionVersion} + 1` })
        .where(and(eq(members.id, memberId), eq(members.accountId, accountId)));
    } else {
      await tx
        .update(accounts)
        .set({ sessionVersion: sql`${accounts.sessionVersion} + 1` })
        .where(eq(accounts.id, accountId));
    }
    await recordAudit(tx, { accountId, action: 'session.ended_all' });
  });
}
