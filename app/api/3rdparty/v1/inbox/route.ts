import { DomainError } from '@/lib/errors';
import { integratorRoute } from '@/lib/protocols/smsgate-api/route';

export const GET = integratorRoute(
  {
    auth: 'integrator',
    doc: {
      operationId: 'smsgateListInbox',
      summary: 'List the inbox (SMSGate): not available',
      description: 'Answers 501. Received messages are in GET /api/v1/messages?direction=inbound.',
      tags: ['SMSGate integrator API'],
      response: { description: 'Never: this answers 501.' },
      errors: ['NOT_IMPLEMENTED'],
    },
  },
  async () => {
    throw new DomainError(
      'NOT_IMPLEMENTED',
      'The inbox is not available on this surface: read received messages with GET /api/v1/messages?direction=inbound.',
    );
  },
);
