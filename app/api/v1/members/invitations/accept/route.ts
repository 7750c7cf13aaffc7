import { acceptInvitationAndSwitch } from '@/lib/auth/memberships';
import { json, route } from '@/lib/http/route';
import { acceptInvitationBody, membershipSchema } from '@/lib/members/schemas';

export const POST = route(
  {
    auth: 'account',
    body: acceptInvitationBody,
    doc: {
      operationId: 'acceptInvitation',
      summary: 'Accept an invitation',
      description:
        'The signed-in email joins the account an invitation link names, with its role, and the session cookie is re-issued for that account. Takes a dashboard session signed in by email code to the invited email (403 otherwise); an expired, revoked or used invitation answers 410 CODE_EXPIRED, an unknown token 404. Accepting again answers the same membership. (Someone with no account yet joins by signing in on the link’s page: the email-code sign-in takes the token and joins in the same step.)',
      tags: ['Members'],
      response: { description: 'The membership, now current.', schema: membershipSchema },
      errors: ['FORBIDDEN', 'NOT_FOUND', 'CODE_EXPIRED'],
    },
  },
  async ({ db, principal, body, req }) => {
    const { membership, cookies } = await acceptInvitationAndSwitch(db, principal, body.token, req);
    const response = json(membership);
    for (const cookie of cookies) response.headers.append('set-cookie', cookie);
    return response;
  },
);
