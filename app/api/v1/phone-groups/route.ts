import { createGroup } from '@/lib/groups/create';
import { presentGroup } from '@/lib/groups/present';
import { listGroups } from '@/lib/groups/read';
import { createGroupBody, groupListQuery } from '@/lib/groups/schemas';
import { route } from '@/lib/http/route';

export const GET = route({ auth: 'account', query: groupListQuery }, async ({ db, principal, query }) =>
  listGroups(db, principal.accountId, query),
);

export const POST = route({ auth: 'account', body: createGroupBody, status: 201 }, async ({ db, principal, body }) =>
  presentGroup(await createGroup(db, principal.accountId, { name: body.name, isDefault: body.is_default })),
);
