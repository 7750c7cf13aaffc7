import { END_ALL_SESSIONS } from '@/lib/auth/docs';
import { endAllSessions } from '@/lib/auth/session-version';
import { route } from '@/lib/http/route';

/** Sign-out and "sign out everywhere": ends every dashboard session of the member (of the account, for a key), this one included. */
export const DELETE = route(
  {
    auth: 'account',
    allowPendingTwoFactor: true,
    doc: {
      operationId: 'endAllSessions',
      summary: 'Sign out everywhere',
      description: END_ALL_SESSIONS,
      tags: ['Authentication'],
      response: { description: 'Every session of the account has ended.' },
      errors: ['FORBIDDEN'],
    },
  },
  async ({ db, principal }) => {
    await endAllSessions(db, principal);
  },
);
