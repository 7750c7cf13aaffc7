import { config } from '@/lib/config';
import { inboxEntrySchema, inboxQuery } from '@/lib/dev-inbox/schemas';
import { listDevInbox } from '@/lib/dev-inbox/store';
import { notFound } from '@/lib/errors';
import { queryObject, validate } from '@/lib/http/parse';
import { route } from '@/lib/http/route';
import { z } from '@/lib/zod';

// Checked before the query is read, so a server without the dev inbox answers 404 to anything.
export const GET = route(
  {
    auth: 'none',
    doc: {
      operationId: 'listDevInbox',
      summary: 'The development inbox',
      description:
        'Codes and emails the service would have texted or emailed, newest first, where no SMS or SMTP provider ' +
        'is configured. Served in local mode, and in server mode only with `DEV_INBOX=1`; otherwise 404.',
      tags: ['Meta'],
      rawQuery: inboxQuery,
      response: { description: 'The inbox.', schema: z.object({ data: z.array(inboxEntrySchema) }) },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, url }) => {
    if (!config.devInboxEnabled) throw notFound('Page');
    const query = validate(inboxQuery, queryObject(url), 'query');
    return { data: await listDevInbox(db, query) };
  },
);
