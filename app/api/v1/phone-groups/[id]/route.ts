import { deleteGroup } from '@/lib/groups/delete';
import { presentGroup } from '@/lib/groups/present';
import { getGroup } from '@/lib/groups/read';
import { renameGroup } from '@/lib/groups/rename';
import { groupIdParams, updateGroupBody } from '@/lib/groups/schemas';
import { route } from '@/lib/http/route';

export const GET = route({ auth: 'account', params: groupIdParams }, async ({ db, principal, params }) =>
  presentGroup(await getGroup(db, principal.accountId, params.id)),
);

export const PATCH = route(
  { auth: 'account', params: groupIdParams, body: updateGroupBody },
  async ({ db, principal, params, body }) =>
    presentGroup(
      await renameGroup(db, principal.accountId, params.id, { name: body.name, isDefault: body.is_default }),
    ),
);

export const DELETE = route({ auth: 'account', params: groupIdParams }, async ({ db, principal, params }) => {
  await deleteGroup(db, principal.accountId, params.id);
});
