import { signInCodeBody } from '@/lib/auth/schemas';
import { requestSignInCode } from '@/lib/auth/sign-in';
import { route } from '@/lib/http/route';
import { clientIp } from '@/lib/rate-limit/client-ip';

export const POST = route({ auth: 'none', body: signInCodeBody, status: 202 }, async ({ db, body, req }) =>
  requestSignInCode(db, body.email, { clientIp: clientIp(req) }),
);
