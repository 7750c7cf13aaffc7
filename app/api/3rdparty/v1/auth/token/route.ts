import { DomainError } from '@/lib/errors';
import { integratorRoute } from '@/lib/protocols/smsgate-api/route';

export const POST = integratorRoute(
  {
    auth: 'integrator',
    doc: {
      operationId: 'smsgateIssueToken',
      summary: 'Issue a JWT (SMSGate): not available',
      description: 'Answers 501, as the reference does with JWT disabled: use your API key (Basic password or Bearer).',
      tags: ['SMSGate integrator API'],
      response: { description: 'Never: this answers 501.' },
      errors: ['NOT_IMPLEMENTED'],
    },
  },
  async () => {
    throw new DomainError(
      'NOT_IMPLEMENTED',
      'Tokens are not issued: send your Simgate API key as the Basic password or as a Bearer token.',
    );
  },
);
