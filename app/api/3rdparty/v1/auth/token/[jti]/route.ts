import { revokeToken } from '@/lib/protocols/smsgate-api/jwt';
import { integratorRoute } from '@/lib/protocols/smsgate-api/route';
import { tokenParams } from '@/lib/protocols/smsgate-api/schemas';

export const DELETE = integratorRoute(
  {
    auth: 'integrator',
    params: tokenParams,
    doc: {
      operationId: 'smsgateRevokeToken',
      summary: 'Revoke a JWT (SMSGate)',
      description:
        'Revokes the account’s token `jti` (the `id` POST /auth/token answered) and the refresh token issued with it; revoking again answers 204 too. 404 for a jti the account never had.',
      tags: ['SMSGate integrator API'],
      response: { description: 'Revoked.' },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, params }) => revokeToken(db, principal.accountId, params.jti),
);
