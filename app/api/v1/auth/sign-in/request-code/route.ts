import { SIGN_IN_REQUEST_CODE } from '@/lib/auth/docs';
import { codeSentSchema, signInCodeBody } from '@/lib/auth/schemas';
import { requestSignInCode } from '@/lib/auth/sign-in';
import { route } from '@/lib/http/route';
import { clientIp } from '@/lib/rate-limit/client-ip';

export const POST = route(
  {
    auth: 'none',
    body: signInCodeBody,
    status: 202,
    doc: {
      operationId: 'requestSignInCode',
      summary: 'Email a browser sign-in code',
      description: SIGN_IN_REQUEST_CODE,
      tags: ['Authentication'],
      response: { description: 'A code is on its way if the email has an account.', schema: codeSentSchema },
      errors: ['RATE_LIMITED', 'SERVICE_UNAVAILABLE'],
    },
  },
  async ({ db, body, req }) => requestSignInCode(db, body.email, { clientIp: clientIp(req) }),
);
