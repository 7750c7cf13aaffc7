import { switchAccount } from '@/lib/auth/memberships';
import { json, route } from '@/lib/http/route';
import { membershipSchema, switchAccountBody } from '@/lib/members/schemas';

export const POST = route(
  {
    auth: 'account',
    body: switchAccountBody,
    doc: {
      operationId: 'switchAccount',
      summary: 'Switch the session to another account',
      description:
        "Re-issues the session cookie for another account the signed-in email is a member of (404 for any other account). Takes a dashboard session signed in by email code (403 for an API key). A membership with two-factor sign-in on needs `totp`, a code of its authenticator or a recovery code: without one, or with a wrong one, 403 `FORBIDDEN` with `second_factor_required: true`; attempts count against the member's limit (429 `RATE_LIMITED`).",
      tags: ['Authentication'],
      response: {
        description: 'The membership, now current; the answer sets the new session cookie.',
        schema: membershipSchema,
      },
      errors: ['FORBIDDEN', 'NOT_FOUND', 'RATE_LIMITED'],
    },
  },
  async ({ db, principal, body, req }) => {
    const { membership, cookies } = await switchAccount(db, principal, body.account_id, req, body.totp);
    const response = json(membership);
    for (const cookie of cookies) response.headers.append('set-cookie', cookie);
    return response;
  },
);
