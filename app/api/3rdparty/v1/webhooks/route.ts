import { json } from '@/lib/http/route';
import { integratorRoute } from '@/lib/protocols/smsgate-api/route';
import { registerWebhookBody, webhookSchema } from '@/lib/protocols/smsgate-api/schemas';
import { listSmsgateWebhooks, registerSmsgateWebhook } from '@/lib/protocols/smsgate-api/webhooks';
import { z } from '@/lib/zod';

export const GET = integratorRoute(
  {
    auth: 'integrator',
    doc: {
      operationId: 'smsgateListWebhooks',
      summary: 'List webhooks (SMSGate)',
      tags: ['SMSGate integrator API'],
      response: { description: 'The SMSGate-format webhooks.', schema: z.array(webhookSchema) },
    },
  },
  async ({ db, principal }) => listSmsgateWebhooks(db, principal.accountId),
);

export const POST = integratorRoute(
  {
    auth: 'integrator',
    body: registerWebhookBody,
    status: 201,
    doc: {
      operationId: 'smsgateRegisterWebhook',
      summary: 'Register a webhook (SMSGate)',
      description:
        'https only; a POST with an `id` that exists replaces that webhook; `deviceId` delivers only events of that phone. Delivered by Simgate’s durable worker (retries, log, resend; listed in the dashboard as "SMSGate format") with SMSGate’s body `{ id, webhookId, event, deviceId, payload }` and `X-Signature` = hex HMAC-SHA256 of the body followed by `X-Timestamp` (unix seconds), keyed with `webhooks.signing_key` of GET /settings.',
      tags: ['SMSGate integrator API'],
      response: { description: 'Registered.', schema: webhookSchema },
    },
  },
  async ({ db, principal, body }) => json(await registerSmsgateWebhook(db, principal.accountId, body), 201),
);
