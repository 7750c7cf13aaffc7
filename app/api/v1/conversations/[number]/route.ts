import { route } from '@/lib/http/route';
import { getConversation } from '@/lib/messages/conversations';
import { conversationParams, messageSchema } from '@/lib/messages/schemas';
import { pageOf } from '@/lib/openapi/define';
import { pageQuery } from '@/lib/pagination';

export const GET = route(
  {
    auth: 'account',
    params: conversationParams,
    query: pageQuery,
    doc: {
      operationId: 'getConversation',
      summary: 'Read a conversation',
      description:
        'Every message exchanged with the number, both directions, newest first; an empty page when there is none.',
      tags: ['Messages'],
      response: { description: 'A page of messages.', schema: pageOf(messageSchema) },
    },
  },
  async ({ db, principal, params, query }) => getConversation(db, principal.accountId, params.number, query),
);
