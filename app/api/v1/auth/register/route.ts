import { RETIRED_PASSWORD_AUTH } from '@/lib/auth/docs';
import { retiredPasswordAuth } from '@/lib/auth/retired';
import { route } from '@/lib/http/route';

export const POST = route(
  {
    auth: 'none',
    doc: {
      operationId: 'passwordRegister',
      summary: 'Retired: password registration',
      description: RETIRED_PASSWORD_AUTH,
      tags: ['Authentication'],
      deprecated: true,
      errors: ['AUTH_METHOD_RETIRED'],
    },
  },
  async () => retiredPasswordAuth(),
);
