import { simCheckBody } from '@/lib/devices/schemas';
import { route } from '@/lib/http/route';
import { presentPhone } from '@/lib/phones/present';
import { getPhone } from '@/lib/phones/read';
import { phoneIdParams } from '@/lib/phones/schemas';
import { verifySimByCode } from '@/lib/phones/sim-check';

export const POST = route(
  { auth: 'account', params: phoneIdParams, body: simCheckBody },
  async ({ db, principal, params, body }) => {
    await verifySimByCode(db, principal.accountId, params.id, body.code);
    return presentPhone(await getPhone(db, principal.accountId, params.id));
  },
);
