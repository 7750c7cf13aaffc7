import { config } from '@/lib/config';
import { inboxQuery } from '@/lib/dev-inbox/schemas';
import { listDevInbox } from '@/lib/dev-inbox/store';
import { notFound } from '@/lib/errors';
import { queryObject, validate } from '@/lib/http/parse';
import { route } from '@/lib/http/route';

// Checked before the query is read, so a server without the dev inbox answers 404 to anything.
export const GET = route({ auth: 'none' }, async ({ db, url }) => {
  if (!config.devInboxEnabled) throw notFound('Page');
  const query = validate(inboxQuery, queryObject(url), 'query');
  return { data: await listDevInbox(db, query) };
});
