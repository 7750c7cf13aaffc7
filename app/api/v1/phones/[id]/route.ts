import { route } from '@/lib/http/route';
import { deletePhone } from '@/lib/phones/delete';
import { presentPhone } from '@/lib/phones/present';
import { getPhone } from '@/lib/phones/read';
import { phoneIdParams, updatePhoneBody } from '@/lib/phones/schemas';
import { updatePhone } from '@/lib/phones/update';

export const GET = route({ auth: 'account', params: phoneIdParams }, async ({ db, principal, params }) =>
  presentPhone(await getPhone(db, principal.accountId, params.id)),
);

export const PATCH = route(
  { auth: 'account', params: phoneIdParams, body: updatePhoneBody },
  async ({ db, principal, params, body }) =>
    presentPhone(
      await updatePhone(db, principal.accountId, params.id, {
        label: body.label,
        groupId: body.group_id,
        messagesPerMinute: body.messages_per_minute,
        dailyCap: body.daily_cap,
      }),
    ),
);

export const DELETE = route({ auth: 'account', params: phoneIdParams }, async ({ db, principal, params }) => {
  await deletePhone(db, principal.accountId, params.id);
});
