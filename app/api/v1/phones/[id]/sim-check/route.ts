import { VERIFY_SIM_BY_CODE } from '@/lib/devices/docs';
import { simCheckBody } from '@/lib/devices/schemas';
import { route } from '@/lib/http/route';
import { presentPhone } from '@/lib/phones/present';
import { getPhone } from '@/lib/phones/read';
import { phoneIdParams, phoneSchema } from '@/lib/phones/schemas';
import { verifySimByCode } from '@/lib/phones/sim-check';

export const POST = route(
  {
    auth: 'account',
    params: phoneIdParams,
    body: simCheckBody,
    doc: {
      operationId: 'verifySimCheck',
      summary: 'Prove the SIM by the code of the check SMS',
      description: VERIFY_SIM_BY_CODE,
      tags: ['Phones', 'SMSGate app (mobile)'],
      response: { description: 'The phone, `sim_verification: verified`.', schema: phoneSchema },
      errors: ['NOT_FOUND', 'INVALID_CODE', 'CODE_EXPIRED', 'INVALID_TRANSITION'],
    },
  },
  async ({ db, principal, params, body }) => {
    await verifySimByCode(db, principal.accountId, params.id, body.code);
    return presentPhone(await getPhone(db, principal.accountId, params.id));
  },
);
