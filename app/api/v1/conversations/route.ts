import { route } from '@/lib/http/route';
import { listConversations } from '@/lib/messages/conversations';
import { conversationSchema } from '@/lib/messages/schemas';
import { pageOf } from '@/lib/openapi/define';
import { pageQuery } from '@/lib/pagination';

export const GET = route(
  {
    auth: 'account',
    query: pageQuery,
    doc: {
      operationId: 'listConversations',
      summary: 'List conversations',
      description:
        'The numbers the account has exchanged messages with (the recipient of an outbound message, the sender of an inbound one), the most recently active first, each with its message count and newest message.',
      tags: ['Messages'],
      response: { description: 'A page of conversations.', schema: pageOf(conversationSchema) },
    },
  },
  async ({ db, principal, query }) => listConversations(db, principal.accountId, query),
);
