import { listMemberships } from '@/lib/auth/memberships';
import { route } from '@/lib/http/route';
import { membershipListSchema } from '@/lib/members/schemas';

export const GET = route(
  {
    auth: 'account',
    doc: {
      operationId: 'listMemberships',
      summary: 'List the accounts of the signed-in person',
      description:
        'Every account the email of a dashboard session (signed in by email code) is a member of, with its role there; `current` marks the one the session is signed in to. Empty for an API key, which names no person.',
      tags: ['Authentication'],
      response: { description: 'The memberships.', schema: membershipListSchema },
    },
  },
  async ({ db, principal }) => listMemberships(db, principal),
);
