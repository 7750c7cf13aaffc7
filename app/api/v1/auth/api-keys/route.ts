import { createApiKey, listApiKeys } from '@/lib/auth/api-keys';
import { CREATE_API_KEY } from '@/lib/auth/docs';
import { apiKeySchema, createApiKeyBody, createdApiKeySchema } from '@/lib/auth/schemas';
import { route } from '@/lib/http/route';
import { pageOf } from '@/lib/openapi/define';
import { pageQuery } from '@/lib/pagination';

export const POST = route(
  {
    auth: 'any',
    body: createApiKeyBody,
    status: 201,
    doc: {
      operationId: 'createApiKey',
      summary: 'Step 4: create an account-wide API key',
      description: CREATE_API_KEY,
      tags: ['API keys'],
      response: { description: 'The new key, shown once.', schema: createdApiKeySchema },
      errors: ['DEVICE_NOT_ACTIVATED', 'FORBIDDEN'],
    },
  },
  async ({ db, principal, body }) => createApiKey(db, principal, body),
);

export const GET = route(
  {
    auth: 'account',
    query: pageQuery,
    doc: {
      operationId: 'listApiKeys',
      summary: 'List API keys',
      description: 'Newest first, revoked keys included (with `revoked_at`). Never the key or its hash.',
      tags: ['API keys'],
      response: { description: 'A page of keys.', schema: pageOf(apiKeySchema) },
    },
  },
  async ({ db, principal, query }) => listApiKeys(db, principal.accountId, query),
);
