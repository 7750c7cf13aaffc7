import { and, eq, isNotNull } from 'drizzle-orm';
import type { Executor } from '@/db';
import { accounts, emailAddresses } from '@/db/schema';

/**
 * The one account whose sign-in email or confirmed forwarding address `email` is (lower-cased), for
 * mail sent without SMTP AUTH (SMTP_ALLOW_CONFIRMED_SENDERS); none when no account, or more than one,
 * has it: an address two accounts confirmed names neither.
 */
export async function accountOfConfirmedSender(executor: Executor, email: string): Promise<string | null> {
  const address = email.trim().toLowerCase();
  const owners = new Set<string>();
  for (const row of await executor.select({ id: accounts.id }).from(accounts).where(eq(accounts.email, address))) {
    owners.add(row.id);
  }
  const confirmed = await executor
    .select({ accountId: emailAddresses.accountId })
    .from(emailAddresses)
    .where(and(eq(emailAddresses.email, address), isNotNull(emailAddresses.confirmedAt)))
    .limit(2);
  for (const row of confirmed) owners.add(row.accountId);
  return owners.size === 1 ? ([...owners][0] ?? null) : null;
}
