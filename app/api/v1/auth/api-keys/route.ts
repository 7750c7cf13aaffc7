import { createApiKey, listApiKeys } from '@/lib/auth/api-keys';
import { createApiKeyBody } from '@/lib/auth/schemas';
import { route } from '@/lib/http/route';
import { pageQuery } from '@/lib/pagination';

export const POST = route({ auth: 'any', body: createApiKeyBody, status: 201 }, async ({ db, principal, body }) =>
  createApiKey(db, principal, body),
);

export const GET = route({ auth: 'account', query: pageQuery }, async ({ db, principal, query }) =>
  listApiKeys(db, principal.accountId, query),
);
