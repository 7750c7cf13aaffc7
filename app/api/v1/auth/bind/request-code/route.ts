import { BIND_REQUEST_CODE } from '@/lib/auth/docs';
import { codeSentSchema } from '@/lib/auth/schemas';
import { requestBindCode } from '@/lib/devices/bind-email';
import { bindRequestBody } from '@/lib/devices/schemas';
import { route } from '@/lib/http/route';

export const POST = route(
  {
    auth: 'device',
    body: bindRequestBody,
    status: 202,
    doc: {
      operationId: 'requestEmailBindingCode',
      summary: 'Step 3a: email a code to bind an email to the device',
      description: BIND_REQUEST_CODE,
      tags: ['Device activation'],
      response: { description: 'The code is on its way.', schema: codeSentSchema },
      errors: ['INVALID_TRANSITION', 'RATE_LIMITED', 'SERVICE_UNAVAILABLE'],
    },
  },
  async ({ db, principal, body }) => requestBindCode(db, principal.deviceId, body.email),
);
