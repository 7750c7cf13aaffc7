import { notAvailableRoute } from '@/lib/protocols/smsgate-api/route';

export const GET = notAvailableRoute({
  operationId: 'smsgateLogs',
  summary: 'Device logs',
  instead: 'Phones do not upload their logs to Simgate.',
});
