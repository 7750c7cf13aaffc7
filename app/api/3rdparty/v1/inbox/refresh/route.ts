import { refreshSmsgateInbox } from '@/lib/protocols/smsgate-api/inbox-refresh';
import { integratorRoute } from '@/lib/protocols/smsgate-api/route';
import { inboxRefreshBody } from '@/lib/protocols/smsgate-api/schemas';

export const POST = integratorRoute(
  {
    auth: 'integrator',
    body: inboxRefreshBody,
    doc: {
      operationId: 'smsgateRefreshInbox',
      summary: 'Request inbox messages refresh (SMSGate)',
      description:
        'Asks `deviceId` (else every phone of the account connected over SSE) to send again the SMS its inbox received between `since` and `until` (at most 30 days), as `POST /api/v1/phones/{id}/inbox-export` does: only what Simgate did not have becomes new messages and webhooks. 202 with no body. 409 `PHONE_NOT_CONNECTED` when no phone can be asked.',
      tags: ['SMSGate integrator API'],
      response: { description: 'Accepted: sent to the phone.' },
      errors: ['NOT_FOUND', 'PHONE_NOT_CONNECTED'],
    },
  },
  async ({ db, principal, body }) => {
    await refreshSmsgateInbox(db, principal.accountId, body);
    return new Response(null, { status: 202 });
  },
);
