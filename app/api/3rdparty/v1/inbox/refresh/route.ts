import { notAvailableRoute } from '@/lib/protocols/smsgate-api/route';

export const POST = notAvailableRoute({
  operationId: 'smsgateRefreshInbox',
  summary: 'Refreshing the inbox',
  instead: 'Received messages are in GET /api/v1/messages?direction=inbound and the sms:received webhook.',
});
