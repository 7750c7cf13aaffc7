import { route } from '@/lib/http/route';
import { pageOf } from '@/lib/openapi/define';
import { createPhone } from '@/lib/phones/create';
import { CREATE_PHONE } from '@/lib/phones/docs';
import { presentPhone } from '@/lib/phones/present';
import { getPhone, listPhones } from '@/lib/phones/read';
import { createPhoneBody, phoneListQuery, phoneSchema, phoneWithUsageSchema } from '@/lib/phones/schemas';

export const GET = route(
  {
    auth: 'account',
    query: phoneListQuery,
    doc: {
      operationId: 'listPhones',
      summary: 'List phones',
      description:
        'Newest first; `group_id` and `status` narrow the list. Each phone shows its `usage` and whether it is `near_cap`.',
      tags: ['Phones'],
      response: { description: 'A page of phones.', schema: pageOf(phoneWithUsageSchema) },
    },
  },
  async ({ db, principal, query }) => listPhones(db, principal.accountId, query),
);

export const POST = route(
  {
    auth: 'account',
    body: createPhoneBody,
    status: 201,
    doc: {
      operationId: 'createPhone',
      summary: 'Register a phone number',
      description: CREATE_PHONE,
      tags: ['Phones'],
      response: { description: 'The phone.', schema: phoneSchema },
      errors: ['DUPLICATE_PHONE', 'PLAN_LIMIT_REACHED', 'GROUP_NOT_FOUND'],
    },
  },
  async ({ db, principal, body }) => {
    const created = await createPhone(db, principal.accountId, {
      phone: body.phone,
      label: body.label,
      groupId: body.group_id,
    });
    return presentPhone(await getPhone(db, principal.accountId, created.id));
  },
);
