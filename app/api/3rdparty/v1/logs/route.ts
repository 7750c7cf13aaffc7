import { DomainError } from '@/lib/errors';
import { integratorRoute } from '@/lib/protocols/smsgate-api/route';

export const GET = integratorRoute(
  {
    auth: 'integrator',
    doc: {
      operationId: 'smsgateLogs',
      summary: 'Device logs (SMSGate): not available',
      description: 'Answers 501, as the reference does with the feature off: phones do not upload logs to Simgate.',
      tags: ['SMSGate integrator API'],
      response: { description: 'Never: this answers 501.' },
      errors: ['NOT_IMPLEMENTED'],
    },
  },
  async () => {
    throw new DomainError('NOT_IMPLEMENTED', 'Logs are not available on Simgate: phones do not upload them.');
  },
);
