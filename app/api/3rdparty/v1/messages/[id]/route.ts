import { cancelSmsgateMessage, getSmsgateMessage } from '@/lib/protocols/smsgate-api/messages';
import { integratorRoute } from '@/lib/protocols/smsgate-api/route';
import { messageParams, messageStateSchema } from '@/lib/protocols/smsgate-api/schemas';

export const GET = integratorRoute(
  {
    auth: 'integrator',
    params: messageParams,
    doc: {
      operationId: 'smsgateGetMessage',
      summary: 'Read a message’s state (SMSGate)',
      description:
        'The whole message’s state (the slowest recipient still live, or Failed/Cancelled when none is), each recipient’s, and when it entered each state. Also at `/message/{id}`.',
      tags: ['SMSGate integrator API'],
      response: { description: 'The state.', schema: messageStateSchema },
      errors: ['NOT_FOUND'],
    },
  },
  async ({ db, principal, params }) => getSmsgateMessage(db, principal.accountId, params.id),
);

export const DELETE = integratorRoute(
  {
    auth: 'integrator',
    params: messageParams,
    doc: {
      operationId: 'smsgateCancelMessage',
      summary: 'Cancel a pending message (SMSGate)',
      description:
        'Cancels (and refunds) every recipient still queued; recipients a phone holds become Cancelling and the phone is told to drop them (Cancelled and refunded once it confirms, Sent if it was too late). A message already Sent, Delivered, Failed or Cancelled answers 409.',
      tags: ['SMSGate integrator API'],
      response: { description: 'The state after cancelling.', schema: messageStateSchema },
      errors: ['NOT_FOUND', 'MESSAGE_NOT_CANCELLABLE'],
    },
  },
  async ({ db, principal, params }) => cancelSmsgateMessage(db, principal.accountId, params.id),
);
