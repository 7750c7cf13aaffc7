import { json, route } from '@/lib/http/route';
import { pageOf } from '@/lib/openapi/define';
import { addOptOut, listOptOuts } from '@/lib/opt-outs/manage';
import { addOptOutBody, optOutListQuery, optOutSchema } from '@/lib/opt-outs/schemas';

export const GET = route(
  {
    auth: 'account',
    query: optOutListQuery,
    doc: {
      operationId: 'listOptOuts',
      summary: 'List opted-out numbers',
      description:
        'Numbers that texted a stop word (STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT: the whole text, any case) to a phone of the account, or were added by hand; newest first. START, UNSTOP or YES removes one.',
      tags: ['Opt-outs'],
      response: { description: 'A page of opt-outs.', schema: pageOf(optOutSchema) },
    },
  },
  async ({ db, principal, query }) => listOptOuts(db, principal.accountId, query),
);

export const POST = route(
  {
    auth: 'account',
    body: addOptOutBody,
    status: 201,
    doc: {
      operationId: 'addOptOut',
      summary: 'Opt a number out by hand',
      description:
        'Emits `recipient.opted_out`. 201 when added, 200 with the existing opt-out when it was there already.',
      tags: ['Opt-outs'],
      response: { description: 'The opt-out.', schema: optOutSchema },
    },
  },
  async ({ db, principal, body }) => {
    const { created, optOut } = await addOptOut(db, principal.accountId, body.phone);
    return json(optOut, created ? 201 : 200);
  },
);
