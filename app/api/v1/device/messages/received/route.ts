import { json, route } from '@/lib/http/route';
import { RECORD_RECEIVED } from '@/lib/messages/docs';
import { receiveMessage } from '@/lib/messages/receive';
import { receivedAnswerSchema, receivedBody } from '@/lib/messages/schemas';

export const POST = route(
  {
    auth: 'device',
    body: receivedBody,
    status: 201,
    doc: {
      operationId: 'recordReceivedMessage',
      summary: 'Record an SMS the phone received',
      description: RECORD_RECEIVED,
      tags: ['Phone API'],
      response: {
        description: 'The inbound message (200 on a retry or a duplicate: the message recorded first).',
        schema: receivedAnswerSchema,
      },
      errors: ['DEVICE_NOT_ACTIVATED', 'FORBIDDEN'],
    },
  },
  async ({ db, principal, body }) => {
    const { created, message, duplicateOf } = await receiveMessage(db, principal, {
      from: body.from,
      content: body.content,
      receivedAt: body.received_at,
      deviceMessageId: body.device_message_id,
    });
    // A retry or a duplicate of a message already recorded answers it again, with 200 instead of 201.
    return json({ ...message, duplicate_of: duplicateOf }, created ? 201 : 200);
  },
);
