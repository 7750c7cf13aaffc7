import { publicOrigin } from '@/lib/http/origin';
import { route } from '@/lib/http/route';
import { createInvitation, listInvitations } from '@/lib/members/invitations';
import { createInvitationBody, invitationListQuery, invitationSchema } from '@/lib/members/schemas';
import { pageOf } from '@/lib/openapi/define';

export const GET = route(
  {
    auth: 'account',
    query: invitationListQuery,
    doc: {
      operationId: 'listInvitations',
      summary: 'List open invitations',
      description:
        'Invitations neither accepted nor revoked, newest first: `pending` ones and `expired` ones (inviting the email again sends a fresh link).',
      tags: ['Members'],
      response: { description: 'A page of invitations.', schema: pageOf(invitationSchema) },
    },
  },
  async ({ db, principal, query }) => listInvitations(db, principal.accountId, query),
);

export const POST = route(
  {
    auth: 'account',
    body: createInvitationBody,
    status: 201,
    doc: {
      operationId: 'createInvitation',
      summary: 'Invite a member',
      description:
        'Emails the address a link valid 7 days (`/invite/<token>`); the invitee signs in with an email code and joins with the role. Takes an owner or admin; only an owner invites an owner. An email with an open invitation has it refreshed (role, link, expiry; the old link stops working; same id). 409 ALREADY_A_MEMBER when the email is a member. Rate-limited per account.',
      tags: ['Members'],
      response: { description: 'The invitation (the link is only in the email).', schema: invitationSchema },
      errors: ['FORBIDDEN', 'ALREADY_A_MEMBER', 'RATE_LIMITED'],
    },
  },
  async ({ db, principal, body, req }) => createInvitation(db, principal, body, { origin: publicOrigin(req) }),
);
