import { route } from '@/lib/http/route';
import { getBulk } from '@/lib/messages/bulk-status';
import { bulkIdParams, bulkSchema } from '@/lib/messages/schemas';

export const GET = route(
  {
    auth: 'account',
    params: bulkIdParams,
    doc: {
      operationId: 'getBulkMessage',
      summary: 'Read a bulk message with its messages counted by state',
      tags: ['Messages'],
      response: { description: 'The bulk message.', schema: bulkSchema },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, params }) => getBulk(db, principal.accountId, params.id),
);
