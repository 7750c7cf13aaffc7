import { RESEND_SIM_CHECK } from '@/lib/devices/docs';
import { route } from '@/lib/http/route';
import { presentPhone } from '@/lib/phones/present';
import { getPhone } from '@/lib/phones/read';
import { phoneIdParams, phoneSchema } from '@/lib/phones/schemas';
import { restartSimCheck } from '@/lib/phones/sim-check';

export const POST = route(
  {
    auth: 'account',
    params: phoneIdParams,
    status: 202,
    doc: {
      operationId: 'resendSimCheck',
      summary: 'Send the SIM check SMS again',
      description: RESEND_SIM_CHECK,
      tags: ['Phones', 'SMSGate app (mobile)'],
      response: { description: 'The phone; the check is on its way.', schema: phoneSchema },
      errors: ['NOT_FOUND', 'INVALID_TRANSITION', 'RATE_LIMITED'],
    },
  },
  async ({ db, principal, params }) => {
    await restartSimCheck(db, principal.accountId, params.id);
    return presentPhone(await getPhone(db, principal.accountId, params.id));
  },
);
