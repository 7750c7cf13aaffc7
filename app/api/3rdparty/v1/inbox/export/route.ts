import { DomainError } from '@/lib/errors';
import { integratorRoute } from '@/lib/protocols/smsgate-api/route';

export const POST = integratorRoute(
  {
    auth: 'integrator',
    doc: {
      operationId: 'smsgateExportInbox',
      summary: 'Export the inbox (SMSGate): not available',
      description:
        'Answers 501. Received messages are in GET /api/v1/messages?direction=inbound and the message.received webhook.',
      tags: ['SMSGate integrator API'],
      response: { description: 'Never: this answers 501.' },
      errors: ['NOT_IMPLEMENTED'],
    },
  },
  async () => {
    throw new DomainError(
      'NOT_IMPLEMENTED',
      'Inbox export is not available on Simgate: read received messages with GET /api/v1/messages?direction=inbound.',
    );
  },
);
