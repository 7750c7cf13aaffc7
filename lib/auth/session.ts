import type { AccountPrincipal } from './principal';

/**
 * The dashboard session behind a request's cookie, as an account principal.
 * Browser sign-in (next-auth) fills this in; until then no request carries a session.
 */
export async function sessionPrincipal(_req: Request): Promise<AccountPrincipal | null> {
  return null;
}
