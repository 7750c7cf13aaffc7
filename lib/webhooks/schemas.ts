import { DELIVERY_STATUSES } from '@/db/schema';
import { eventType, subscribableEvent } from '@/lib/event-catalogue/catalogue';
import { pageQuery } from '@/lib/pagination';
import { e164 } from '@/lib/phone-number';
import { z } from '@/lib/zod';
import { webhookUrl } from './url';

export { webhookUrl };

const MAX_PHONE_FILTERS = 100;

const eventList = z
  .array(subscribableEvent)
  .min(1, 'subscribe to at least one event')
  .max(50)
  .transform((events) => [...new Set(events)])
  .openapi({ description: 'Event names from the catalogue (GET /api/v1/webhooks/events); at least one.' });

const phoneFilters = z
  .array(e164)
  .max(MAX_PHONE_FILTERS)
  .transform((numbers) => [...new Set(numbers)])
  .openapi({
    description:
      "E.164 numbers of the account's phones. When not empty, only events about these phones are delivered; empty means every phone.",
  });

const description = z.string().trim().max(500).nullable().openapi({ description: 'A note for yourself.' });

const acceptReplies = z.boolean().openapi({
  description:
    'For a `message.received` subscriber: when its receiver answers 2xx with `Content-Type: application/json` and `{ "reply": { "content": "…" } }`, that text is sent from the receiving phone to the sender (charged, counted against AUTO_REPLY_LIMIT, once per inbound message whatever the retries and resends). Any other 2xx body is ignored.',
});

export const createWebhookBody = z
  .strictObject({
    url: webhookUrl,
    events: eventList,
    phone_filters: phoneFilters.optional(),
    description: description.optional(),
    accept_replies: acceptReplies.optional(),
    format: z.enum(['standard', 'twilio']).optional().openapi({
      description:
        '`standard` (the default): Simgate’s JSON body signed with Standard Webhooks headers. `twilio`: Twilio’s form-encoded requests signed with X-Twilio-Signature under the account’s Twilio Auth Token (create it first, POST /api/v1/twilio/auth-token): an inbound message as Twilio’s incoming-message request, whose TwiML answer (`<Response><Message>…</Message></Response>`) is sent as the reply, and message state events as status callbacks. Only `message.received` and the message state events.',
    }),
  })
  .openapi('CreateWebhook');

export const updateWebhookBody = z
  .strictObject({
    url: webhookUrl.optional(),
    events: eventList.optional(),
    phone_filters: phoneFilters.optional(),
    description: description.optional(),
    accept_replies: acceptReplies.optional(),
    enabled: z.boolean().optional().openapi({
      description:
        'false pauses delivery (queued deliveries wait, new events are not queued); true resumes it and clears `disabled_reason`.',
    }),
  })
  .openapi('UpdateWebhook');

export type CreateWebhookInput = z.output<typeof createWebhookBody>;
export type UpdateWebhookInput = z.output<typeof updateWebhookBody>;

export const webhookParams = z.object({ id: z.uuid() });
export const deliveryParams = z.object({ id: z.uuid(), delivery_id: z.uuid() });

const timestamp = z.string().openapi({ format: 'date-time', example: '2025-01-15T10:30:00.000Z' });

export const webhookSchema = z
  .object({
    id: z.uuid(),
    url: z.string(),
    events: z.array(subscribableEvent),
    phone_filters: z.array(z.string()),
    description: z.string().nullable(),
    enabled: z.boolean(),
    accept_replies: z.boolean(),
    format: z.enum(['standard', 'smsgate', 'twilio']).openapi({
      description:
        '`smsgate`: registered through SMSGate’s integrator API (/api/3rdparty/v1/webhooks), delivered in SMSGate’s body with its X-Signature; manage it there. `twilio`: Twilio’s form-encoded requests and X-Twilio-Signature, TwiML answers sent as replies.',
    }),
    disabled_reason: z
      .string()
      .nullable()
      .openapi({ description: 'Why the service disabled the webhook (after a day of failed deliveries), if it did.' }),
    created_at: timestamp,
    updated_at: timestamp,
    health: z
      .object({
        last_attempt_at: timestamp.nullable().openapi({ description: 'The last delivery attempt (within a week).' }),
        last_status_code: z
          .number()
          .int()
          .nullable()
          .openapi({ description: 'What the receiver answered then (null: no answer).' }),
        attempts_24h: z.number().int(),
        failure_rate_24h: z
          .number()
          .nullable()
          .openapi({ description: 'Share of the last 24 hours’ attempts that got no 2xx (null: none).' }),
      })
      .optional()
      .openapi({ description: 'How deliveries have been going (in lists and when read by id).' }),
  })
  .openapi('Webhook');

export const secretSchema = z
  .object({
    secret: z.string().openapi({
      example: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      description: 'The Standard Webhooks signing secret.',
    }),
  })
  .openapi('WebhookSecret');

export const createdWebhookSchema = webhookSchema.extend(secretSchema.shape).openapi('CreatedWebhook');

export const deliveryQuery = pageQuery.extend({
  status: z.enum(DELIVERY_STATUSES).optional(),
  event: eventType.optional().openapi({ description: 'Only deliveries of this event type.' }),
});

export const deliverySchema = z
  .object({
    id: z.uuid(),
    webhook_id: z.uuid(),
    event_id: z.uuid().openapi({ description: 'Sent as `webhook-id`: the same on every retry and resend.' }),
    event_type: eventType,
    status: z.enum(DELIVERY_STATUSES),
    attempt_count: z.number().int(),
    next_attempt_at: timestamp.nullable().openapi({ description: 'When the next attempt is due (pending only).' }),
    last_status_code: z.number().int().nullable(),
    last_error: z.string().nullable(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .openapi('WebhookDelivery');

export const attemptSchema = z
  .object({
    id: z.number().int(),
    attempted_at: timestamp,
    status_code: z.number().int().nullable(),
    latency_ms: z.number().int().nullable(),
    error: z.string().nullable(),
    response_body: z.string().nullable().openapi({ description: "The first 1 KiB of the receiver's answer." }),
    reply_result: z.string().nullable().openapi({
      description:
        'For a webhook that accepts replies: what became of the answer’s reply (sent, already sent, skipped and why, or why it was malformed); null when the answer held none.',
    }),
  })
  .openapi('WebhookAttempt');

export const deliveryDetailSchema = deliverySchema
  .extend({
    payload: z
      .object({ type: eventType, timestamp, data: z.record(z.string(), z.unknown()) })
      .openapi({ description: 'The body posted to the receiver.' }),
    attempts: z.array(attemptSchema).openapi({ description: 'Every attempt, oldest first.' }),
  })
  .openapi('WebhookDeliveryDetail');
