import { type SessionAccount, sessionAccountFromCookieHeader } from './session';

export type SignedInAccount = SessionAccount;

/** The account signed in to the browser, for server pages (they pass the request's Cookie header). */
export function signedInAccount(cookieHeader: string | null): Promise<SignedInAccount | null> {
  return sessionAccountFromCookieHeader(cookieHeader);
}
