import { route } from '@/lib/http/route';
import { STATES } from '@/lib/messages/docs';
import { getMessage } from '@/lib/messages/list';
import { messageIdParams, messageSchema } from '@/lib/messages/schemas';

export const GET = route(
  {
    auth: 'account',
    params: messageIdParams,
    doc: {
      operationId: 'getMessage',
      summary: 'Read a message with its state history',
      description: STATES,
      tags: ['Messages'],
      response: { description: 'The message and every state it has been in.', schema: messageSchema },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, params }) => getMessage(db, principal.accountId, params.id),
);
