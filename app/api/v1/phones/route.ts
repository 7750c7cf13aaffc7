import { route } from '@/lib/http/route';
import { createPhone } from '@/lib/phones/create';
import { presentPhone } from '@/lib/phones/present';
import { getPhone, listPhones } from '@/lib/phones/read';
import { createPhoneBody, phoneListQuery } from '@/lib/phones/schemas';

export const GET = route({ auth: 'account', query: phoneListQuery }, async ({ db, principal, query }) =>
  listPhones(db, principal.accountId, query),
);

export const POST = route({ auth: 'account', body: createPhoneBody, status: 201 }, async ({ db, principal, body }) => {
  const created = await createPhone(db, principal.accountId, {
    phone: body.phone,
    label: body.label,
    groupId: body.group_id,
  });
  return presentPhone(await getPhone(db, principal.accountId, created.id));
});
