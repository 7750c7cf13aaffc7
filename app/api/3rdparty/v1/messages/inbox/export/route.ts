import { refreshSmsgateInbox } from '@/lib/protocols/smsgate-api/inbox-refresh';
import { integratorRoute } from '@/lib/protocols/smsgate-api/route';
import { inboxRefreshBody } from '@/lib/protocols/smsgate-api/schemas';

export const POST = integratorRoute(
  {
    auth: 'integrator',
    body: inboxRefreshBody,
    doc: {
      operationId: 'smsgateExportInbox',
      summary: 'Export inbox (SMSGate, deprecated)',
      description:
        'The older form of `POST /inbox/refresh`: SMS only, webhooks always on; answers 202 with `Deprecation: true`, as the reference does. Also at `/inbox/export`.',
      tags: ['SMSGate integrator API'],
      response: { description: 'Accepted: sent to the phone.' },
      errors: ['NOT_FOUND', 'PHONE_NOT_CONNECTED'],
    },
  },
  async ({ db, principal, body }) => {
    await refreshSmsgateInbox(db, principal.accountId, { ...body, webhookDelivery: 'Individual' }, ['SMS']);
    return new Response(null, { status: 202, headers: { Deprecation: 'true' } });
  },
);
