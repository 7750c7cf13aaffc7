import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { catalogueEntrySchema, EVENT_CATALOGUE, EVENT_TYPES } from '@/lib/events/catalogue';
import { defineRoute, pageOf } from '@/lib/openapi/define';
import { pageQuery } from '@/lib/pagination';
import { z } from '@/lib/zod';
import { MAX_ATTEMPTS } from './retry-policy';
import {
  createdWebhookSchema,
  createWebhookBody,
  deliveryDetailSchema,
  deliveryParams,
  deliveryQuery,
  deliverySchema,
  secretSchema,
  updateWebhookBody,
  webhookParams,
  webhookSchema,
} from './schemas';

const TAGS = ['Webhooks'];

const DELIVERY_RULES = [
  '**Delivery.** Each event is POSTed as JSON `{ "type", "timestamp", "data" }` and signed per',
  '[Standard Webhooks](https://www.standardwebhooks.com/): headers `webhook-id` (the event id, the same on',
  'every retry and resend: de-duplicate on it), `webhook-timestamp` (Unix seconds) and `webhook-signature`',
  '(`v1,<base64 HMAC-SHA256>` of `id.timestamp.body` with the secret; after a rotation the old secret signs',
  'alongside for 24 h, space-separated). Any 2xx answer within 10 s is success. Redirects are not followed.',
  `5xx, 429 (Retry-After honoured), 408, 3xx and network errors are retried ${MAX_ATTEMPTS - 1} times with`,
  'exponential backoff and ±20 % jitter (30 s, 2 m, 10 m, 30 m, 1 h, 2 h, 4 h, 8 h, 8 h: about a day);',
  'other 4xx fail at once. Delivery is at least once, from a durable log. A webhook whose deliveries have',
  'failed for a day is disabled at its next final failure and its owner is emailed. In server mode the URL',
  'must resolve to public addresses only (checked when saved and at every connection).',
].join('\n');

function registerEventPayloads(registry: OpenAPIRegistry): void {
  for (const type of EVENT_TYPES) {
    const entry = EVENT_CATALOGUE[type];
    const payload = z
      .object({
        type: z.literal(type),
        timestamp: z.string().openapi({ format: 'date-time', description: 'When the event happened.' }),
        data: entry.schema,
      })
      .openapi(`Event_${type.replace('.', '_')}`, {
        example: { type, timestamp: '2025-01-15T10:30:00.000Z', data: entry.sample },
      });
    registry.registerWebhook({
      method: 'post',
      path: type,
      summary: type,
      description: `${entry.description}\n\n${DELIVERY_RULES}`,
      tags: TAGS,
      request: {
        headers: z.object({
          'webhook-id': z.string().openapi({ description: 'The event id; stable across retries.' }),
          'webhook-timestamp': z.string().openapi({ description: 'Unix seconds when this attempt was signed.' }),
          'webhook-signature': z.string().openapi({ description: 'Space-separated `v1,<base64>` signatures.' }),
        }),
        body: { required: true, content: { 'application/json': { schema: payload } } },
      },
      responses: { 200: { description: 'Any 2xx acknowledges the event.' } },
    });
  }
}

export function registerWebhooksRoutes(registry: OpenAPIRegistry): void {
  registerEventPayloads(registry);
  const webhookErrors = ['NOT_FOUND'] as const;

  defineRoute(registry, {
    method: 'post',
    path: '/api/v1/webhooks',
    summary: 'Create a webhook',
    description: `Answers the webhook with its signing \`secret\`.\n\n${DELIVERY_RULES}`,
    tags: TAGS,
    auth: 'account',
    body: createWebhookBody,
    response: { status: 201, description: 'The webhook, with its signing secret.', schema: createdWebhookSchema },
    errors: ['VALIDATION_ERROR'],
  });
  defineRoute(registry, {
    method: 'get',
    path: '/api/v1/webhooks',
    summary: 'List webhooks',
    tags: TAGS,
    auth: 'account',
    query: pageQuery,
    response: { status: 200, description: 'Webhooks, newest first (no secrets).', schema: pageOf(webhookSchema) },
  });
  defineRoute(registry, {
    method: 'get',
    path: '/api/v1/webhooks/events',
    summary: 'The event catalogue',
    description:
      'Every event name with its description and a sample payload. `webhook.test` is only sent by the test endpoint and cannot be subscribed to. Needs no key.',
    tags: TAGS,
    auth: 'none',
    response: { status: 200, description: 'The catalogue.', schema: z.object({ data: z.array(catalogueEntrySchema) }) },
  });
  defineRoute(registry, {
    method: 'get',
    path: '/api/v1/webhooks/{id}',
    summary: 'Read a webhook',
    tags: TAGS,
    auth: 'account',
    params: webhookParams,
    response: { status: 200, description: 'The webhook (no secret).', schema: webhookSchema },
    errors: [...webhookErrors],
  });
  defineRoute(registry, {
    method: 'patch',
    path: '/api/v1/webhooks/{id}',
    summary: 'Update, enable or disable a webhook',
    description:
      'Only the fields sent change. `enabled: false` pauses delivery; `enabled: true` resumes it (also after an automatic disable).',
    tags: TAGS,
    auth: 'account',
    params: webhookParams,
    body: updateWebhookBody,
    response: { status: 200, description: 'The updated webhook.', schema: webhookSchema },
    errors: [...webhookErrors],
  });
  defineRoute(registry, {
    method: 'delete',
    path: '/api/v1/webhooks/{id}',
    summary: 'Delete a webhook',
    description: 'Deletes the webhook and its delivery log.',
    tags: TAGS,
    auth: 'account',
    params: webhookParams,
    response: { status: 204, description: 'Deleted.' },
    errors: [...webhookErrors],
  });
  defineRoute(registry, {
    method: 'get',
    path: '/api/v1/webhooks/{id}/secret',
    summary: "Show a webhook's signing secret",
    tags: TAGS,
    auth: 'account',
    params: webhookParams,
    response: { status: 200, description: 'The current secret.', schema: secretSchema },
    errors: [...webhookErrors],
  });
  defineRoute(registry, {
    method: 'post',
    path: '/api/v1/webhooks/{id}/rotate-secret',
    summary: 'Rotate the signing secret',
    description:
      'Answers the new secret. The previous one keeps signing alongside it for 24 h, so `webhook-signature` carries two signatures meanwhile.',
    tags: TAGS,
    auth: 'account',
    params: webhookParams,
    response: { status: 200, description: 'The new secret.', schema: secretSchema },
    errors: [...webhookErrors],
  });
  defineRoute(registry, {
    method: 'post',
    path: '/api/v1/webhooks/{id}/test',
    summary: 'Send a test event',
    description:
      'Queues a signed `webhook.test` event to this webhook only, whatever its events; follow it with the delivery endpoints. A disabled webhook sends it once enabled.',
    tags: TAGS,
    auth: 'account',
    params: webhookParams,
    response: { status: 202, description: 'The queued delivery.', schema: deliverySchema },
    errors: [...webhookErrors],
  });
  defineRoute(registry, {
    method: 'get',
    path: '/api/v1/webhooks/{id}/deliveries',
    summary: "List a webhook's deliveries",
    tags: TAGS,
    auth: 'account',
    params: webhookParams,
    query: deliveryQuery,
    response: { status: 200, description: 'Deliveries, newest first.', schema: pageOf(deliverySchema) },
    errors: [...webhookErrors],
  });
  defineRoute(registry, {
    method: 'get',
    path: '/api/v1/webhooks/{id}/deliveries/{delivery_id}',
    summary: 'Read a delivery with its attempts',
    tags: TAGS,
    auth: 'account',
    params: deliveryParams,
    response: {
      status: 200,
      description: 'The delivery, its payload and every attempt.',
      schema: deliveryDetailSchema,
    },
    errors: [...webhookErrors],
  });
  defineRoute(registry, {
    method: 'post',
    path: '/api/v1/webhooks/{id}/deliveries/{delivery_id}/resend',
    summary: 'Resend a delivery',
    description:
      'Queues the delivery for an attempt now, whatever its state, with the same `webhook-id`. A disabled webhook sends it once enabled.',
    tags: TAGS,
    auth: 'account',
    params: deliveryParams,
    response: { status: 202, description: 'The requeued delivery.', schema: deliverySchema },
    errors: [...webhookErrors],
  });
}
