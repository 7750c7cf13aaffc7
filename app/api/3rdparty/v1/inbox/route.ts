import { json } from '@/lib/http/route';
import { listInbox } from '@/lib/protocols/smsgate-api/inbox';
import { integratorRoute } from '@/lib/protocols/smsgate-api/route';
import { inboxQuery, incomingMessageSchema } from '@/lib/protocols/smsgate-api/schemas';
import { z } from '@/lib/zod';

export const GET = integratorRoute(
  {
    auth: 'integrator',
    query: inboxQuery,
    doc: {
      operationId: 'smsgateListInbox',
      summary: 'List received messages (SMSGate)',
      description:
        'The account’s received messages (the same as GET /api/v1/messages?direction=inbound), newest first, filtered by `type`, `from`/`to` (time received) and `deviceId`; `limit` (1–500, default 50) and `offset`, with the total in `X-Total-Count`.',
      tags: ['SMSGate integrator API'],
      response: { description: 'A page of received messages.', schema: z.array(incomingMessageSchema) },
    },
  },
  async ({ db, principal, query }) => {
    const { items, total } = await listInbox(db, principal.accountId, query);
    return json(items, 200, { 'X-Total-Count': String(total) });
  },
);
