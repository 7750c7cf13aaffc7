import { route } from '@/lib/http/route';
import { cancelBulk } from '@/lib/messages/cancel';
import { bulkCancelledSchema, bulkIdParams } from '@/lib/messages/schemas';

export const POST = route(
  {
    auth: 'account',
    params: bulkIdParams,
    doc: {
      operationId: 'cancelBulkMessage',
      summary: 'Cancel what is not sent yet of a bulk',
      description:
        'Every message of the bulk that is still `queued` becomes `cancelled` (refunded, `message.cancelled` each); every one a phone holds becomes `cancelling` (`message.cancelling` each) and its phone is told to drop it, as POST /api/v1/messages/{id}/cancel does. The answer counts them and the messages already sent or done. Safe to repeat.',
      tags: ['Messages'],
      response: { description: 'The counts.', schema: bulkCancelledSchema },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, params }) => cancelBulk(db, principal.accountId, params.id),
);
