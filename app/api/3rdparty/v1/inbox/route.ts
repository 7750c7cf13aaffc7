import { notAvailableRoute } from '@/lib/protocols/smsgate-api/route';

export const GET = notAvailableRoute({
  operationId: 'smsgateListInbox',
  summary: 'The inbox',
  instead: 'Read received messages with GET /api/v1/messages?direction=inbound.',
});
