import { route } from '@/lib/http/route';
import { listMembers } from '@/lib/members/manage';
import { memberListSchema } from '@/lib/members/schemas';

export const GET = route(
  {
    auth: 'account',
    doc: {
      operationId: 'listMembers',
      summary: 'List the members',
      description:
        'The people of the account, by email, with their roles, the earliest joined first; `you` is the caller (a member of a dashboard session, or an API key and its role). Every role may read it.',
      tags: ['Members'],
      response: { description: 'Every member.', schema: memberListSchema },
    },
  },
  async ({ db, principal }) => listMembers(db, principal),
);
