import { route } from '@/lib/http/route';
import { deletePhone } from '@/lib/phones/delete';
import { DELETE_PHONE, UPDATE_PHONE } from '@/lib/phones/docs';
import { readPhone } from '@/lib/phones/read';
import { phoneIdParams, phoneWithUsageSchema, updatePhoneBody } from '@/lib/phones/schemas';
import { updatePhone } from '@/lib/phones/update';

export const GET = route(
  {
    auth: 'account',
    params: phoneIdParams,
    doc: {
      operationId: 'getPhone',
      summary: 'Read a phone',
      description:
        'The phone, its pacing and quotas, and its `usage`: messages handed to it in the last minute, the last hour and today (UTC), and distinct recipients this month (UTC).',
      tags: ['Phones'],
      response: { description: 'The phone.', schema: phoneWithUsageSchema },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, params }) => readPhone(db, principal.accountId, params.id),
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
      response: { description: 'The updated phone.', schema: phoneWithUsageSchema },
      errors: ['NOT_FOUND', 'GROUP_NOT_FOUND'],
    },
  },
  async ({ db, principal, params, body }) => {
    await updatePhone(db, principal.accountId, params.id, {
      label: body.label,
      groupId: body.group_id,
      messagesPerMinute: body.messages_per_minute,
      dailyCap: body.daily_cap,
      hourlyCap: body.hourly_cap,
      monthlyRecipientCap: body.monthly_recipient_cap,
      jitterSeconds: body.jitter_seconds,
    });
    return readPhone(db, principal.accountId, params.id);
  },
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
