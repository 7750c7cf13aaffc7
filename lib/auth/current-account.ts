import { getDb } from '@/db';
import { findAccountById } from '@/lib/accounts/lookup';
import { sessionFromCookieHeader } from './session';

export type SignedInAccount = { accountId: string; email: string };

/** The account signed in to the browser, for server pages (they pass the request's Cookie header). */
export async function signedInAccount(cookieHeader: string | null): Promise<SignedInAccount | null> {
  const principal = await sessionFromCookieHeader(cookieHeader);
  if (!principal) return null;
  const account = await findAccountById(await getDb(), principal.accountId);
  return account ? { accountId: account.id, email: account.email } : null;
}
