import { issuePairingCode } from '@/lib/devices/pairing';
import { route } from '@/lib/http/route';
import { phoneIdParams } from '@/lib/phones/schemas';
import { mobileBaseUrl } from '@/lib/protocols/smsgate-app/urls';

export const POST = route(
  { auth: 'account', params: phoneIdParams, status: 201 },
  async ({ db, principal, params, req }) =>
    issuePairingCode(db, principal.accountId, params.id, { serverUrl: mobileBaseUrl(req) }),
);
