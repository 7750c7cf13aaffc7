import { BIND_CONFIRM } from '@/lib/auth/docs';
import { confirmBind } from '@/lib/devices/bind-email';
import { bindConfirmBody, bindConfirmResponse } from '@/lib/devices/schemas';
import { route } from '@/lib/http/route';

export const POST = route(
  {
    auth: 'device',
    body: bindConfirmBody,
    doc: {
      operationId: 'confirmEmailBinding',
      summary: 'Step 3b: confirm the emailed code and activate the device',
      description: BIND_CONFIRM,
      tags: ['Device activation'],
      response: { description: 'The device is activated.', schema: bindConfirmResponse },
      errors: ['INVALID_CODE', 'CODE_EXPIRED', 'INVALID_TRANSITION', 'PLAN_LIMIT_REACHED'],
    },
  },
  async ({ db, principal, body }) => confirmBind(db, principal.deviceId, body.code),
);
