import { route } from '@/lib/http/route';
import { presentPhone } from '@/lib/phones/present';
import { getPhone } from '@/lib/phones/read';
import { phoneIdParams } from '@/lib/phones/schemas';
import { restartSimCheck } from '@/lib/phones/sim-check';

export const POST = route(
  { auth: 'account', params: phoneIdParams, status: 202 },
  async ({ db, principal, params }) => {
    await restartSimCheck(db, principal.accountId, params.id);
    return presentPhone(await getPhone(db, principal.accountId, params.id));
  },
);
