import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { EVENT_CATALOGUE, EVENT_TYPES } from '@/lib/event-catalogue/catalogue';
import { z } from '@/lib/zod';
import { MAX_ATTEMPTS } from './retry-policy';

export const DELIVERY_RULES = [
  '**Delivery.** Each event is POSTed as JSON `{ "type", "timestamp", "data" }` and signed per',
  '[Standard Webhooks](https://www.standardwebhooks.com/): headers `webhook-id` (the event id, the same on',
  'every retry and resend: de-duplicate on it), `webhook-timestamp` (Unix seconds) and `webhook-signature`',
  '(`v1,<base64 HMAC-SHA256>` of `id.timestamp.body` with the secret; after a rotation the old secret signs',
  'alongside for 24 h, space-separated). Any 2xx answer within 10 s is success. Redirects are not followed.',
  `5xx, 429 (Retry-After honoured), 408, 3xx and network errors are retried ${MAX_ATTEMPTS - 1} times with`,
  'exponential backoff and ±20 % jitter (30 s, 2 m, 10 m, 30 m, 1 h, 2 h, 4 h, 8 h, 8 h: about a day);',
  'other 4xx fail at once. Delivery is at least once, from a durable log. A webhook whose deliveries have',
  'failed for a day is disabled at its next final failure and its owner is emailed. In server mode the URL',
  'must resolve to public addresses only (checked when saved and at every connection). An account has a',
  'bounded number of posts in flight at once, however many webhooks it has: a slow receiver delays its own',
  'deliveries, not other accounts’. The plan bounds how many webhooks an account has (403 PLAN_LIMIT_REACHED).',
].join('\n');

export const CATALOGUE =
  'Every event name with its description and a sample payload. `webhook.test` is only sent by the test endpoint and cannot be subscribed to. Needs no key.';

/**
 * The document's `webhooks`: what Simgate POSTs to an integrator's endpoint, one entry per event of the
 * catalogue. They are requests Simgate makes, not routes it serves, so no route declares them.
 */
export function registerEventPayloads(registry: OpenAPIRegistry): void {
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
      operationId: `on${type.replace(/(^|[._])(\w)/g, (_, _sep: string, letter: string) => letter.toUpperCase())}`,
      summary: type,
      description: `${entry.description}\n\n${DELIVERY_RULES}`,
      tags: ['Webhooks'],
      // Authenticity is the signature in the headers below, not a credential the receiver checks.
      security: [],
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
