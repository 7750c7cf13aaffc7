import { route } from '@/lib/http/route';
import { removeOptOut } from '@/lib/opt-outs/manage';
import { optOutParams } from '@/lib/opt-outs/schemas';

export const DELETE = route(
  {
    auth: 'account',
    params: optOutParams,
    doc: {
      operationId: 'removeOptOut',
      summary: 'Remove an opt-out',
      description: 'Sends to the number are allowed again; emits `recipient.opted_in`. 404 when it is not opted out.',
      tags: ['Opt-outs'],
      response: { description: 'Removed.' },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, params }) => {
    await removeOptOut(db, principal.accountId, params.phone);
  },
);
