import { eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { accounts, members, phoneGroups } from '@/db/schema';
import { config } from '@/lib/config';
import { moveCredits } from '@/lib/credits/ledger';
import { withTransaction } from '@/lib/transactions';

export const DEFAULT_GROUP_NAME = 'Default';

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}

export type AccountRow = typeof accounts.$inferSelect;

/**
 * The account of an email, created on first sight with its owner (the email), its default group, its starter credits
 * (through the ledger) and the free plan. Two concurrent first binds of one email make one account:
 * the unique index on email decides, not a read-then-write.
 */
export async function findOrCreateAccount(
  executor: Executor,
  rawEmail: string,
): Promise<{ account: AccountRow; created: boolean }> {
  const email = normaliseEmail(rawEmail);
  return withTransaction(executor, async (tx) => {
    const [inserted] = await tx
      .insert(accounts)
      .values({ email })
      .onConflictDoNothing({ target: accounts.email })
      .returning();
    if (!inserted) {
      const [existing] = await tx.select().from(accounts).where(eq(accounts.email, email));
      if (!existing) throw new Error('findOrCreateAccount: account vanished');
      return { account: existing, created: false };
    }
    // The activating email is the account's first owner.
    await tx.insert(members).values({ accountId: inserted.id, email, role: 'owner' });
    const [group] = await tx
      .insert(phoneGroups)
      .values({
        accountId: inserted.id,
        name: DEFAULT_GROUP_NAME,
        nameKey: DEFAULT_GROUP_NAME.toLowerCase(),
        isDefault: true,
      })
      .returning({ id: phoneGroups.id });
    if (!group) throw new Error('findOrCreateAccount: default group not created');
    const starter = config.starterCredits;
    if (starter > 0) {
      await moveCredits(tx, { accountId: inserted.id, groupId: group.id, amount: starter, kind: 'starter_grant' });
    }
    return { account: inserted, created: true };
  });
}
