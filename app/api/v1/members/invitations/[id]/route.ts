import { route } from '@/lib/http/route';
import { getInvitation, revokeInvitation } from '@/lib/members/invitations';
import { invitationParams, invitationSchema } from '@/lib/members/schemas';

export const GET = route(
  {
    auth: 'account',
    params: invitationParams,
    doc: {
      operationId: 'getInvitation',
      summary: 'Read an invitation',
      description: 'Any invitation of the account, whatever its status.',
      tags: ['Members'],
      response: { description: 'The invitation.', schema: invitationSchema },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, params }) => getInvitation(db, principal.accountId, params.id),
);

export const DELETE = route(
  {
    auth: 'account',
    params: invitationParams,
    doc: {
      operationId: 'revokeInvitation',
      summary: 'Revoke an invitation',
      description:
        'Its link stops working at once. Takes an owner or admin. 404 for an invitation accepted or revoked already.',
      tags: ['Members'],
      response: { description: 'Revoked.' },
      errors: ['FORBIDDEN', 'NOT_FOUND'],
    },
  },
  async ({ db, principal, params }) => {
    await revokeInvitation(db, principal, params.id);
  },
);
