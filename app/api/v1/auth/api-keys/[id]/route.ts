import { revokeApiKey } from '@/lib/auth/api-keys';
import { apiKeyParams } from '@/lib/auth/schemas';
import { route } from '@/lib/http/route';

export const DELETE = route({ auth: 'account', params: apiKeyParams }, async ({ db, principal, params }) => {
  await revokeApiKey(db, principal.accountId, params.id);
});
