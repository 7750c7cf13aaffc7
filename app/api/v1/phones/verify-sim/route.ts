import { VERIFY_SIM } from '@/lib/devices/docs';
import { verifySimBody, verifySimResponse } from '@/lib/devices/schemas';
import { verifySim } from '@/lib/devices/verify-sim';
import { route } from '@/lib/http/route';

export const POST = route(
  {
    auth: 'none',
    body: verifySimBody,
    doc: {
      operationId: 'verifySim',
      summary: 'Step 2: verify the SIM with the texted code',
      description: VERIFY_SIM,
      tags: ['Device activation'],
      response: { description: 'The verified device and its key.', schema: verifySimResponse },
      errors: ['INVALID_CODE', 'CODE_EXPIRED', 'NOT_FOUND', 'INVALID_TRANSITION'],
    },
  },
  async ({ db, body }) => verifySim(db, { deviceId: body.device_id, code: body.code }),
);
