import { exportContacts } from '@/lib/contacts/export';
import { route } from '@/lib/http/route';
import { z } from '@/lib/zod';

export const GET = route(
  {
    auth: 'account',
    doc: {
      operationId: 'exportContacts',
      summary: 'Export contacts as CSV',
      description:
        "Every contact of the account, ordered by number, as `name,number,tags,notes` (tags joined by `;`), streamed: the file an import reads back. A name or note starting with `=`, `+`, `-` or `@` gets a `'` first, so that a spreadsheet does not run it as a formula; the import takes it off.",
      tags: ['Contacts'],
      response: { description: 'The CSV file.', schema: z.string(), mediaType: 'text/csv' },
    },
  },
  async ({ db, principal }) =>
    new Response(exportContacts(db, principal.accountId), {
      headers: {
        'content-type': 'text/csv; charset=utf-8',
        'content-disposition': 'attachment; filename="contacts.csv"',
        'cache-control': 'no-store',
      },
    }),
);
