import { deleteGroup } from '@/lib/groups/delete';
import { DELETE_GROUP, RENAME_GROUP } from '@/lib/groups/docs';
import { presentGroup } from '@/lib/groups/present';
import { getGroup } from '@/lib/groups/read';
import { renameGroup } from '@/lib/groups/rename';
import { groupIdParams, groupSchema, updateGroupBody } from '@/lib/groups/schemas';
import { route } from '@/lib/http/route';

export const GET = route(
  {
    auth: 'account',
    params: groupIdParams,
    doc: {
      operationId: 'getPhoneGroup',
      summary: 'Read a phone group',
      tags: ['Phone groups'],
      response: { description: 'The group.', schema: groupSchema },
      errors: ['GROUP_NOT_FOUND'],
    },
  },
  async ({ db, principal, params }) => presentGroup(await getGroup(db, principal.accountId, params.id)),
);

export const PATCH = route(
  {
    auth: 'account',
    params: groupIdParams,
    body: updateGroupBody,
    doc: {
      operationId: 'renamePhoneGroup',
      summary: 'Rename a phone group',
      description: RENAME_GROUP,
      tags: ['Phone groups'],
      response: { description: 'The renamed group.', schema: groupSchema },
      errors: ['GROUP_NOT_FOUND', 'DUPLICATE_NAME', 'DEFAULT_GROUP_LOCKED'],
    },
  },
  async ({ db, principal, params, body }) =>
    presentGroup(
      await renameGroup(db, principal.accountId, params.id, {
        name: body.name,
        isDefault: body.is_default,
        sending: body.sending,
      }),
    ),
);

export const DELETE = route(
  {
    auth: 'account',
    params: groupIdParams,
    doc: {
      operationId: 'deletePhoneGroup',
      summary: 'Delete a phone group',
      description: DELETE_GROUP,
      tags: ['Phone groups'],
      response: { description: 'Deleted.' },
      errors: ['GROUP_NOT_FOUND', 'DEFAULT_GROUP_LOCKED'],
    },
  },
  async ({ db, principal, params }) => {
    await deleteGroup(db, principal.accountId, params.id);
  },
);
