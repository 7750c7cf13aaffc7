import { route } from '@/lib/http/route';
import { changeMemberRole, removeMember } from '@/lib/members/manage';
import { memberParams, memberSchema, updateMemberBody } from '@/lib/members/schemas';

export const PATCH = route(
  {
    auth: 'account',
    params: memberParams,
    body: updateMemberBody,
    doc: {
      operationId: 'updateMember',
      summary: "Change a member's role",
      description:
        'Owners and admins change roles; only an owner makes a member an owner or takes the owner role away (403 FORBIDDEN otherwise). The account always keeps at least one owner: demoting the last one answers 409 CONFLICT. The member’s open sessions take the new role on their next request. Audited as `member.role_changed`.',
      tags: ['Members'],
      response: { description: 'The member with the new role.', schema: memberSchema },
      errors: ['NOT_FOUND', 'FORBIDDEN', 'CONFLICT'],
    },
  },
  async ({ db, principal, params, body }) => changeMemberRole(db, principal, params.id, body.role),
);

export const DELETE = route(
  {
    auth: 'account',
    params: memberParams,
    doc: {
      operationId: 'removeMember',
      summary: 'Remove a member',
      description:
        'Owners and admins remove members (only an owner removes an owner); any member may remove themselves, leaving the account. The last owner cannot be removed (409 CONFLICT). The member’s sessions end at once: their next request answers 401. Audited as `member.removed` or `member.left`.',
      tags: ['Members'],
      response: { description: 'Removed.' },
      errors: ['NOT_FOUND', 'FORBIDDEN', 'CONFLICT'],
    },
  },
  async ({ db, principal, params }) => {
    await removeMember(db, principal, params.id);
  },
);
