import { route } from '@/lib/http/route';
import { deletePhone } from '@/lib/phones/delete';
import { DELETE_PHONE, UPDATE_PHONE } from '@/lib/phones/docs';
import { presentPhone } from '@/lib/phones/present';
import { getPhone } from '@/lib/phones/read';
import { phoneIdParams, phoneSchema, updatePhoneBody } from '@/lib/phones/schemas';
import { updatePhone } from '@/lib/phones/update';

export const GET = route(
  {
    auth: 'account',
    params: phoneIdParams,
    doc: {
      operationId: 'getPhone',
      summary: 'Read a phone',
      tags: ['Phones'],
      response: { description: 'The phone.', schema: phoneSchema },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, params }) => presentPhone(await getPhone(db, principal.accountId, params.id)),
);

export const PATCH = route(
  {
    auth: 'account',
    params: phoneIdParams,
    body: updatePhoneBody,
    doc: {
      operationId: 'updatePhone',
      summary: 'Update a phone',
      description: UPDATE_PHONE,
      tags: ['Phones'],
      response: { description: 'The updated phone.', schema: phoneSchema },
      errors: ['NOT_FOUND', 'GROUP_NOT_FOUND'],
    },
  },
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

export const DELETE = route(
  {
    auth: 'account',
    params: phoneIdParams,
    doc: {
      operationId: 'deletePhone',
      summary: 'Remove a phone',
      description: DELETE_PHONE,
      tags: ['Phones'],
      response: { description: 'Removed.' },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, params }) => {
    await deletePhone(db, principal.accountId, params.id);
  },
);
