import { route } from '@/lib/http/route';
import { cancelMessage } from '@/lib/messages/cancel';
import { messageIdParams, messageSchema } from '@/lib/messages/schemas';

export const POST = route(
  {
    auth: 'account',
    params: messageIdParams,
    doc: {
      operationId: 'cancelMessage',
      summary: 'Cancel a queued message',
      description:
        'A message still `queued` (scheduled ones included) becomes `cancelled`: its credit is refunded and `message.cancelled` is emitted. Cancelling it again answers the same 200. A message a phone was already handed (or further) answers 409 MESSAGE_NOT_CANCELLABLE with `current_status`. Against a phone claiming it at the same moment, exactly one wins.',
      tags: ['Messages'],
      response: { description: 'The cancelled message.', schema: messageSchema },
      errors: ['NOT_FOUND', 'MESSAGE_NOT_CANCELLABLE'],
    },
  },
  async ({ db, principal, params }) => cancelMessage(db, principal.accountId, params.id),
);
