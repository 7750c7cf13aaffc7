import { revokeApiKey } from '@/lib/auth/api-keys';
import { REVOKE_API_KEY } from '@/lib/auth/docs';
import { apiKeyParams } from '@/lib/auth/schemas';
import { route } from '@/lib/http/route';

export const DELETE = route(
  {
    auth: 'account',
    params: apiKeyParams,
    doc: {
      operationId: 'revokeApiKey',
      summary: 'Revoke an API key',
      description: REVOKE_API_KEY,
      tags: ['API keys'],
      response: { description: 'Revoked.' },
      errors: ['NOT_FOUND', 'FORBIDDEN'],
    },
  },
  async ({ db, principal, params }) => {
    await revokeApiKey(db, principal.accountId, params.id);
  },
);
