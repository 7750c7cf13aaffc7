import { CREATE_PAIRING_CODE } from '@/lib/devices/docs';
import { issuePairingCode } from '@/lib/devices/pairing';
import { pairingCodeResponse } from '@/lib/devices/schemas';
import { route } from '@/lib/http/route';
import { phoneIdParams } from '@/lib/phones/schemas';
import { mobileBaseUrl } from '@/lib/protocols/smsgate-app/urls';

export const POST = route(
  {
    auth: 'account',
    params: phoneIdParams,
    status: 201,
    doc: {
      operationId: 'createPairingCode',
      summary: 'A code that pairs the SMSGate app with this phone',
      description: CREATE_PAIRING_CODE,
      tags: ['Phones', 'SMSGate app (mobile)'],
      response: { description: 'The code.', schema: pairingCodeResponse },
      errors: ['NOT_FOUND', 'RATE_LIMITED'],
    },
  },
  async ({ db, principal, params, req }) =>
    issuePairingCode(db, principal.accountId, params.id, { serverUrl: mobileBaseUrl(req) }),
);
