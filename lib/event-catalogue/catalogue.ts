import { EVENT_TYPES, type EventType, PHONE_STATUSES } from '@/db/schema';
import { alertSchema } from '@/lib/alerts/schemas';
import { contactRefSchema } from '@/lib/contacts/schemas';
import { messageSchema } from '@/lib/messages/schemas';
import { optOutEventData } from '@/lib/opt-outs/schemas';
import { z } from '@/lib/zod';

/**
 * The event catalogue, defined once: it feeds webhook validation (which names may be
 * subscribed), the OpenAPI document (one webhook operation and payload schema per event) and
 * GET /api/v1/webhooks/events (the settings panel's list). It is built from the areas' wire
 * schemas, so it sits above them; the areas record events through lib/events, below them.
 */

const timestamp = z.iso.datetime({ offset: true }).openapi({ example: '2025-01-15T10:30:00.000Z' });
const nullableTimestamp = timestamp.nullable();

export const messageEventData = messageSchema
  .omit({ history: true })
  .extend({
    contact: contactRefSchema.nullable().openapi({
      description:
        'The contact saved for the counterpart number (`to` of an outbound message, `from` of an inbound one) when the event happened, or null.',
    }),
  })
  .openapi('MessageEventData', {
    description: 'The message as GET /api/v1/messages/{id} shows it (without its history), at the time of the event.',
  });

export const reroutedEventData = messageEventData
  .extend({
    rerouted: z.object({
      from: z.string().openapi({ description: 'The phone it left.' }),
      to: z.string().openapi({ description: 'The phone it moved to (now its `from`).' }),
      reason: z.string().openapi({ example: 'phone offline' }),
    }),
  })
  .openapi('MessageReroutedEventData', {
    description: 'A message sent through a group (`from_group`) moved to another phone of the group.',
  });

export const phoneEventData = z
  .object({
    phone_id: z.uuid(),
    phone: z.string().openapi({ example: '+14155550100' }),
    status: z.enum(PHONE_STATUSES),
    battery: z.number().int().min(0).max(100).nullable(),
    last_heartbeat_at: nullableTimestamp,
  })
  .openapi('PhoneEventData', { description: 'The phone whose online status changed.' });

export const phonePauseEventData = z
  .object({
    phone_id: z.uuid(),
    phone: z.string().openapi({ example: '+14155550100' }),
    until: timestamp.openapi({ description: 'When the pause ends (for `phone.resumed`: when it ended).' }),
    pause_seconds: z.number().int().openapi({ description: 'The length of the pause.', example: 900 }),
  })
  .openapi('PhonePauseEventData', {
    description: 'A phone paused after Android reported its SMS limit exceeded, or resumed after that pause.',
  });

export const testEventData = z
  .object({
    webhook_id: z.uuid(),
    message: z.string(),
  })
  .openapi('WebhookTestEventData', { description: 'A ping sent by POST /api/v1/webhooks/{id}/test.' });

export const alertEventData = alertSchema.openapi('AlertEventData', {
  description:
    'The alert as GET /api/v1/alerts lists it: its kind, its subject (phone, group or webhook), the values measured when it was raised, and `resolved_at` once the condition ended.',
});

const SAMPLE_TIME = '2025-01-15T10:30:00.000Z';

function sampleAlert(resolvedAt: string | null): Record<string, unknown> {
  return {
    id: 'b3c1a7e4-52d0-4c5e-9f0a-2d4e6f8a0b1c',
    kind: 'phone_offline',
    subject: { type: 'phone', id: '7c9e6679-7425-40de-944b-e07fc1f90ae7', name: '+14155550100' },
    values: { status: 'offline', last_heartbeat_at: '2025-01-15T10:14:00.000Z', threshold_minutes: 15 },
    raised_at: SAMPLE_TIME,
    resolved_at: resolvedAt,
  };
}

function sampleMessage(overrides: Partial<z.output<typeof messageSchema>>): z.output<typeof messageSchema> {
  return {
    id: '0f8fad5b-d9cb-469f-a165-70867728950e',
    kind: 'message',
    direction: 'outbound',
    from: '+14155550100',
    to: '+14155550199',
    content: 'Your code is 123456',
    status: 'sent',
    segments: 1,
    encoding: 'GSM-7',
    request_id: 'order-1042',
    bulk_id: null,
    sim: null,
    from_group: null,
    priority: 'normal',
    held_reason: null,
    attempts: 1,
    send_at: SAMPLE_TIME,
    expires_at: '2025-01-16T10:30:00.000Z',
    error: null,
    origin: null,
    automation: null,
    data_port: null,
    details: null,
    content_purged_at: null,
    encrypted: false,
    created_at: SAMPLE_TIME,
    updated_at: SAMPLE_TIME,
    contact: { id: '9b2f4c1e-3d5a-4e6f-8a7b-0c1d2e3f4a5b', name: 'Ada Lovelace' },
    ...overrides,
  };
}

function samplePhone(status: 'online' | 'offline'): Record<string, unknown> {
  return {
    phone_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
    phone: '+14155550100',
    status,
    battery: status === 'online' ? 87 : 12,
    last_heartbeat_at: SAMPLE_TIME,
  };
}

type CatalogueEntry = {
  description: string;
  /** Whether a webhook may list it in `events`. */
  subscribable: boolean;
  /** What the event is about: phone filters match the message's phone or the phone itself. */
  schema: z.ZodType;
  sample: Record<string, unknown>;
};

export const EVENT_CATALOGUE = {
  'message.received': {
    description:
      'An SMS arrived on one of your phones (`kind` `message`; `data` for a data SMS, `mms` for an MMS an SMSGate-app phone reported). Phone filters match the receiving phone (`to`).',
    subscribable: true,
    schema: messageEventData,
    sample: sampleMessage({
      direction: 'inbound',
      from: '+14155550199',
      to: '+14155550100',
      content: 'STOP',
      status: 'received',
      request_id: null,
    }),
  },
  'message.sent': {
    description: 'A phone handed an outbound message to its carrier.',
    subscribable: true,
    schema: messageEventData,
    sample: sampleMessage({ status: 'sent' }),
  },
  'message.delivered': {
    description: "The carrier confirmed delivery of an outbound message to the recipient's handset.",
    subscribable: true,
    schema: messageEventData,
    sample: sampleMessage({ status: 'delivered' }),
  },
  'message.failed': {
    description: 'An outbound message failed (reported by the phone); its credit is refunded.',
    subscribable: true,
    schema: messageEventData,
    sample: sampleMessage({ status: 'failed', error: 'RESULT_ERROR_NO_SERVICE' }),
  },
  'message.expired': {
    description: 'An outbound message was not sent within its time to live; its credit is refunded.',
    subscribable: true,
    schema: messageEventData,
    sample: sampleMessage({ status: 'expired' }),
  },
  'message.cancelling': {
    description:
      'A message a phone already holds was asked to be cancelled through the API or the dashboard; the phone is told. `message.cancelled` follows (refunded) when the phone confirms it dropped it; `message.sent` instead when it had sent it already; `message.expired` when it answers neither within the time to live.',
    subscribable: true,
    schema: messageEventData,
    sample: sampleMessage({ status: 'cancelling' }),
  },
  'message.cancelled': {
    description:
      'A queued message (scheduled or not) was cancelled through the API or the dashboard, or a phone confirmed it dropped a message it held (after `message.cancelling`); its credit is refunded.',
    subscribable: true,
    schema: messageEventData,
    sample: sampleMessage({ status: 'cancelled' }),
  },
  'message.rerouted': {
    description:
      'A message sent through a group (`from_group`) moved to another phone of the group: its phone went offline, or reported a failure another phone may not have. It is queued again on the new phone and charged no more.',
    subscribable: true,
    schema: reroutedEventData,
    sample: {
      ...sampleMessage({ status: 'queued', from: '+14155550101', from_group: 7 }),
      rerouted: { from: '+14155550100', to: '+14155550101', reason: 'phone offline' },
    },
  },
  'recipient.opted_out': {
    description:
      'A number texted a stop word (STOP, STOPALL, UNSUBSCRIBE, CANCEL, END, QUIT) to one of your phones, or was added to your opt-outs by hand: sends to it are refused with 422 RECIPIENT_OPTED_OUT.',
    subscribable: true,
    schema: optOutEventData,
    sample: { phone: '+14155550199', account_phone: '+14155550100', source: 'inbound', at: SAMPLE_TIME },
  },
  'recipient.opted_in': {
    description: 'A number that had opted out texted START, UNSTOP or YES, or was removed from your opt-outs by hand.',
    subscribable: true,
    schema: optOutEventData,
    sample: { phone: '+14155550199', account_phone: '+14155550100', source: 'inbound', at: SAMPLE_TIME },
  },
  'phone.online': {
    description: 'A phone reported itself online after being offline or unknown.',
    subscribable: true,
    schema: phoneEventData,
    sample: samplePhone('online'),
  },
  'phone.offline': {
    description: 'A phone reported itself offline, or sent no heartbeat within the heartbeat timeout.',
    subscribable: true,
    schema: phoneEventData,
    sample: samplePhone('offline'),
  },
  'phone.paused': {
    description:
      'A phone reported Android’s `RESULT_ERROR_LIMIT_EXCEEDED`: it is handed no message until `until` (`LIMIT_PAUSE_SECONDS`, doubled on a repeat within the hour, at most 4 h). Its failed message goes to another phone of its group (or waits for the pause when sent `from` it); its queued group messages move as for an offline phone. Sent once per pause.',
    subscribable: true,
    schema: phonePauseEventData,
    sample: {
      phone_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
      phone: '+14155550100',
      until: '2025-01-15T10:45:00.000Z',
      pause_seconds: 900,
    },
  },
  'phone.resumed': {
    description: 'A phone’s pause (`phone.paused`) ended: it is handed messages again. Sent once per pause.',
    subscribable: true,
    schema: phonePauseEventData,
    sample: {
      phone_id: '7c9e6679-7425-40de-944b-e07fc1f90ae7',
      phone: '+14155550100',
      until: '2025-01-15T10:45:00.000Z',
      pause_seconds: 900,
    },
  },
  'phone.ping': {
    description:
      'A heartbeat of a phone: recorded only for accounts with an SMSGate-format webhook of `system:ping` (the integrator surface, /api/3rdparty/v1), which is what receives it. Not subscribable.',
    subscribable: false,
    schema: phoneEventData,
    sample: samplePhone('online'),
  },
  'alert.raised': {
    description:
      'A condition of Settings → Alerts started (a phone offline or low on battery, a message queued too long on an online phone, a group low on credits, a webhook failing): sent once, however long it lasts. Phone filters match alerts about a phone; alerts about a group or a webhook go to webhooks without phone filters.',
    subscribable: true,
    schema: alertEventData,
    sample: sampleAlert(null),
  },
  'alert.resolved': {
    description:
      'The condition of an alert ended (or its alert was turned off, or its subject deleted): sent once, with `resolved_at` set.',
    subscribable: true,
    schema: alertEventData,
    sample: sampleAlert('2025-01-15T10:42:00.000Z'),
  },
  'webhook.test': {
    description:
      'A ping sent only by POST /api/v1/webhooks/{id}/test, to that one webhook, whatever its events. Not subscribable.',
    subscribable: false,
    schema: testEventData,
    sample: { webhook_id: '3b241101-e2bb-4255-8caf-4136c566a962', message: 'This is a test event from Simgate.' },
  },
} as const satisfies Record<EventType, CatalogueEntry>;

export { EVENT_TYPES, type EventType };

export const SUBSCRIBABLE_EVENT_TYPES = EVENT_TYPES.filter((type) => EVENT_CATALOGUE[type].subscribable) as [
  EventType,
  ...EventType[],
];

export const subscribableEvent = z.enum(SUBSCRIBABLE_EVENT_TYPES).openapi({
  description: 'An event name from the catalogue (GET /api/v1/webhooks/events).',
  example: 'message.received',
});

export const eventType = z.enum(EVENT_TYPES);

/** The body of every webhook request (Standard Webhooks payload). */
export function webhookPayload(
  type: string,
  occurredAt: Date,
  data: unknown,
): { type: string; timestamp: string; data: unknown } {
  return { type, timestamp: occurredAt.toISOString(), data };
}

export const catalogueEntrySchema = z
  .object({
    type: eventType,
    description: z.string(),
    subscribable: z.boolean(),
    sample: z.object({ type: eventType, timestamp, data: z.record(z.string(), z.unknown()) }),
  })
  .openapi('EventCatalogueEntry');

export function presentCatalogue(): Array<z.infer<typeof catalogueEntrySchema>> {
  return EVENT_TYPES.map((type) => {
    const entry: CatalogueEntry = EVENT_CATALOGUE[type];
    return {
      type,
      description: entry.description,
      subscribable: entry.subscribable,
      sample: webhookPayload(type, new Date(SAMPLE_TIME), entry.sample) as {
        type: EventType;
        timestamp: string;
        data: Record<string, unknown>;
      },
    };
  });
}
