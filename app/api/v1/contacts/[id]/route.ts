import { deleteContact, getContact, updateContact } from '@/lib/contacts/manage';
import { contactParams, contactSchema, updateContactBody } from '@/lib/contacts/schemas';
import { route } from '@/lib/http/route';

export const GET = route(
  {
    auth: 'account',
    params: contactParams,
    doc: {
      operationId: 'getContact',
      summary: 'Read a contact',
      description:
        'With `opted_out`; its conversation is GET /api/v1/conversations/{number}. Another account’s contact is 404.',
      tags: ['Contacts'],
      response: { description: 'The contact.', schema: contactSchema },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, params }) => getContact(db, principal.accountId, params.id),
);

export const PATCH = route(
  {
    auth: 'account',
    params: contactParams,
    body: updateContactBody,
    doc: {
      operationId: 'updateContact',
      summary: 'Change a contact',
      description:
        'Changes the fields sent (`tags` replaces the list; null or empty clears `name` and `notes`). A number another contact has answers 409 `CONFLICT` naming `number`.',
      tags: ['Contacts'],
      response: { description: 'The contact.', schema: contactSchema },
      errors: ['NOT_FOUND', 'CONFLICT'],
    },
  },
  async ({ db, principal, params, body }) => updateContact(db, principal.accountId, params.id, body),
);

export const DELETE = route(
  {
    auth: 'account',
    params: contactParams,
    doc: {
      operationId: 'deleteContact',
      summary: 'Delete a contact',
      description: 'Its messages stay; they show no contact any more.',
      tags: ['Contacts'],
      response: { description: 'Deleted.' },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, params }) => {
    await deleteContact(db, principal.accountId, params.id);
  },
);
