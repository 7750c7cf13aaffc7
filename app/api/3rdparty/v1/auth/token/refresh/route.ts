import { refreshToken } from '@/lib/protocols/smsgate-api/jwt';
import { integratorRoute } from '@/lib/protocols/smsgate-api/route';
import { tokenResponseSchema } from '@/lib/protocols/smsgate-api/schemas';

export const POST = integratorRoute(
  {
    auth: 'integrator',
    status: 201,
    doc: {
      operationId: 'smsgateRefreshToken',
      summary: 'Refresh a JWT (SMSGate)',
      description:
        'With a refresh token as `Authorization: Bearer`: a new access token with the original scopes and the default lifetime, and a new refresh token. A refresh token works once; a used one answers 401.',
      tags: ['SMSGate integrator API'],
      response: { description: 'The new tokens.', schema: tokenResponseSchema },
      errors: ['FORBIDDEN'],
    },
  },
  async ({ db, principal }) => refreshToken(db, principal),
);
