import { json, route } from '@/lib/http/route';
import { cancelMessage } from '@/lib/messages/cancel';
import { messageIdParams, messageSchema } from '@/lib/messages/schemas';

export const POST = route(
  {
    auth: 'account',
    params: messageIdParams,
    doc: {
      operationId: 'cancelMessage',
      summary: 'Cancel a message not sent yet',
      description:
        "A message still `queued` (scheduled ones included) becomes `cancelled` at once (200): its credit is refunded and `message.cancelled` is emitted. One a phone already holds (`dispatched`) becomes `cancelling` (202, `message.cancelling`) and its phone is told to drop it: the phone's confirmation makes it `cancelled` and refunded; if the phone had sent it already, `sent` wins (no refund, `message.sent` as usual); a phone that answers neither lets it expire at its time to live. Cancelling it again answers the same. A message already sent (or further) answers 409 MESSAGE_NOT_CANCELLABLE with `current_status`. Against a phone claiming or reporting it at the same moment, exactly one wins.",
      tags: ['Messages'],
      response: { description: 'The cancelled message.', schema: messageSchema },
      otherResponses: [
        { status: 202, description: 'The message, `cancelling`: its phone is told to drop it.', schema: messageSchema },
      ],
      errors: ['NOT_FOUND', 'MESSAGE_NOT_CANCELLABLE'],
    },
  },
  async ({ db, principal, params }) => {
    const message = await cancelMessage(db, principal.accountId, params.id);
    return message.status === 'cancelling' ? json(message, 202) : message;
  },
);
