import { endAllSessions } from '@/lib/auth/session-version';
import { route } from '@/lib/http/route';

/** Sign-out and "sign out everywhere": ends every dashboard session of the account, this one included. */
export const DELETE = route({ auth: 'account' }, async ({ db, principal }) => {
  await endAllSessions(db, principal.accountId);
});
