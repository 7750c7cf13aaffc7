import { eq } from 'drizzle-orm';
import type { Database, Executor } from '@/db';
import { accounts } from '@/db/schema';

/**
 * Where the Twilio-compatible API's credential lives: the account's Account SID and its Auth Token,
 * sealed with APP_SECRET (the adapter seals and opens it), on the accounts row.
 */

/** The account's sealed Auth Token, or null when it has none; `lock` takes its row lock (in a transaction). */
export async function sealedAuthTokenOf(
  executor: Executor,
  accountId: string,
  options: { lock?: boolean } = {},
): Promise<string | null> {
  const query = executor
    .select({ sealed: accounts.twilioAuthTokenEncrypted })
    .from(accounts)
    .where(eq(accounts.id, accountId));
  const [row] = await (options.lock ? query.for('update') : query);
  return row?.sealed ?? null;
}

/** Stores the account's Account SID and sealed Auth Token, replacing what it had. */
export async function storeAuthToken(
  executor: Executor,
  accountId: string,
  credential: { accountSid: string; sealed: string },
): Promise<void> {
  await executor
    .update(accounts)
    .set({ twilioAccountSid: credential.accountSid, twilioAuthTokenEncrypted: credential.sealed })
    .where(eq(accounts.id, accountId));
}

/** The account an Account SID names, with its sealed Auth Token (null: none); undefined for no account. */
export async function accountOfSid(
  db: Database,
  accountSid: string,
): Promise<{ accountId: string; sealed: string | null } | undefined> {
  const [row] = await db
    .select({ id: accounts.id, sealed: accounts.twilioAuthTokenEncrypted })
    .from(accounts)
    .where(eq(accounts.twilioAccountSid, accountSid));
  return row ? { accountId: row.id, sealed: row.sealed } : undefined;
}
