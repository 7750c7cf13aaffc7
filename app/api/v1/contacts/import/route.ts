import { readCsvBody } from '@/lib/contacts/csv';
import { importContacts, previewImport } from '@/lib/contacts/import';
import {
  importBodyDoc,
  importPreviewSchema,
  importQuery,
  importResultSchema,
  MAX_IMPORT_ROWS,
  MAX_REPORTED_INVALID,
} from '@/lib/contacts/schemas';
import { json, route } from '@/lib/http/route';

export const POST = route(
  {
    auth: 'account',
    query: importQuery,
    status: 201,
    doc: {
      operationId: 'importContacts',
      summary: 'Import contacts from CSV',
      description: `The body is a comma-separated UTF-8 file sent as \`text/csv\`, up to 5 MB and ${MAX_IMPORT_ROWS} rows, with a header row. The numbers are in the first column whose header names a phone (\`phone\`, \`number\`, \`mobile\`, \`msisdn\` or \`to\`), else the first column, as bulk compose reads a CSV; they are E.164 (\`+\` and the country code; spaces, dots, dashes and brackets are ignored, and a leading \`00\` is read as \`+\`). Columns \`name\`, \`tags\` (separated by \`;\` or \`|\`) and \`notes\` are read when present. A number that is a contact already is updated: the file's columns replace those fields, the others stay. Rows with a bad number, a field past its bound or a number an earlier row had are not imported and are reported (\`row\` counts the header as 1; the first ${MAX_REPORTED_INVALID} are listed, all are counted); they never fail the import. The valid rows are written in one transaction: all of them, or none when the import fails. \`?dry_run=true\` answers what the import would do and writes nothing.`,
      tags: ['Contacts'],
      rawBody: importBodyDoc,
      rawBodyMediaType: 'text/csv',
      response: { description: 'What was imported.', schema: importResultSchema },
      otherResponses: [{ status: 200, description: 'With `dry_run=true`.', schema: importPreviewSchema }],
      errors: ['UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE'],
    },
  },
  async ({ db, principal, query, req }) => {
    const text = await readCsvBody(req);
    if (query.dry_run) return json(await previewImport(db, principal.accountId, text));
    return json(await importContacts(db, principal.accountId, text), 201);
  },
);
