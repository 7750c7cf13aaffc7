import { notAvailableRoute } from '@/lib/protocols/smsgate-api/route';

export const POST = notAvailableRoute({
  operationId: 'smsgateIssueToken',
  summary: 'Issuing a JWT',
  instead: 'Send your Simgate API key as the Basic password or as a Bearer token.',
});
