import { json, route } from '@/lib/http/route';
import { receiveMessage } from '@/lib/messages/receive';
import { receivedBody } from '@/lib/messages/schemas';

export const POST = route({ auth: 'device', body: receivedBody }, async ({ db, principal, body }) => {
  const { created, message } = await receiveMessage(db, principal, {
    from: body.from,
    content: body.content,
    receivedAt: body.received_at,
    deviceMessageId: body.device_message_id,
  });
  // A retry of a message already recorded answers it again, with 200 instead of 201.
  return json(message, created ? 201 : 200);
});
