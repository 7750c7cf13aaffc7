import { issueToken } from '@/lib/protocols/smsgate-api/jwt';
import { integratorRoute } from '@/lib/protocols/smsgate-api/route';
import { tokenRequestBody, tokenResponseSchema } from '@/lib/protocols/smsgate-api/schemas';

export const POST = integratorRoute(
  {
    auth: 'integrator',
    body: tokenRequestBody,
    status: 201,
    doc: {
      operationId: 'smsgateIssueToken',
      summary: 'Issue a JWT (SMSGate)',
      description:
        'An access token limited to `scopes`, and a refresh token. Send the access token as `Authorization: Bearer` to any operation of this API that its scopes open (each operation names its scope); it stops working when it expires, when it is revoked, or when the API key that issued it is revoked. A caller holding a JWT can only grant scopes it holds.',
      tags: ['SMSGate integrator API'],
      response: { description: 'The tokens.', schema: tokenResponseSchema },
      errors: ['FORBIDDEN'],
    },
  },
  async ({ db, principal, body }) => issueToken(db, principal, { scopes: body.scopes, ttl: body.ttl ?? 0 }),
);
