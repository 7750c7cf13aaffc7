import { createContact, listContacts } from '@/lib/contacts/manage';
import { contactListQuery, contactSchema, createContactBody } from '@/lib/contacts/schemas';
import { json, route } from '@/lib/http/route';
import { pageOf } from '@/lib/openapi/define';

export const GET = route(
  {
    auth: 'account',
    query: contactListQuery,
    doc: {
      operationId: 'listContacts',
      summary: 'List contacts',
      description:
        'The account’s contacts, newest first. `search` matches a name (any case, anywhere in it) or the start of a number; `tag` keeps the contacts carrying it. Each says whether its number opted out.',
      tags: ['Contacts'],
      response: { description: 'A page of contacts.', schema: pageOf(contactSchema) },
    },
  },
  async ({ db, principal, query }) => listContacts(db, principal.accountId, query),
);

export const POST = route(
  {
    auth: 'account',
    body: createContactBody,
    status: 201,
    doc: {
      operationId: 'createContact',
      summary: 'Add a contact',
      description:
        'A number is one contact per account: a number that is a contact already answers 409 `CONFLICT` naming `number` (PATCH that contact instead).',
      tags: ['Contacts'],
      response: { description: 'The contact.', schema: contactSchema },
      errors: ['CONFLICT'],
    },
  },
  async ({ db, principal, body }) => json(await createContact(db, principal.accountId, body), 201),
);
