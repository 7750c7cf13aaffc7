import { createGroup } from '@/lib/groups/create';
import { CREATE_GROUP } from '@/lib/groups/docs';
import { presentGroup } from '@/lib/groups/present';
import { listGroups } from '@/lib/groups/read';
import { createGroupBody, groupListQuery, groupSchema } from '@/lib/groups/schemas';
import { route } from '@/lib/http/route';
import { pageOf } from '@/lib/openapi/define';

export const GET = route(
  {
    auth: 'account',
    query: groupListQuery,
    doc: {
      operationId: 'listPhoneGroups',
      summary: 'List phone groups',
      description: 'Newest first, each with its balance and phone count.',
      tags: ['Phone groups'],
      response: { description: 'A page of groups.', schema: pageOf(groupSchema) },
    },
  },
  async ({ db, principal, query }) => listGroups(db, principal.accountId, query),
);

export const POST = route(
  {
    auth: 'account',
    body: createGroupBody,
    status: 201,
    doc: {
      operationId: 'createPhoneGroup',
      summary: 'Create a phone group',
      description: CREATE_GROUP,
      tags: ['Phone groups'],
      response: { description: 'The group.', schema: groupSchema },
      errors: ['DUPLICATE_NAME', 'PLAN_LIMIT_REACHED', 'DEFAULT_GROUP_LOCKED'],
    },
  },
  async ({ db, principal, body }) =>
    presentGroup(await createGroup(db, principal.accountId, { name: body.name, isDefault: body.is_default })),
);
