import { dataSmsBytes, dataSmsPort } from '@/lib/messages/data-sms';
import { MAX_CONTENT_LENGTH, MAX_ENCRYPTED_LENGTH, MAX_TTL_SECONDS, MIN_TTL_SECONDS } from '@/lib/messages/limits';
import { checkEncryption, encryptedValue } from '@/lib/messages/schemas';
import { SIM_SLOTS } from '@/lib/messages/states';
import { e164 } from '@/lib/phone-number';
import { INBOX_MESSAGE_TYPES } from '@/lib/protocols/smsgate-app/schemas';
import { z } from '@/lib/zod';
import { ACCESS_TTL_DEFAULT_S, ACCESS_TTL_MAX_S, REFRESH_TTL_S } from './jwt';
import { SMSGATE_SCOPES } from './scopes';

/**
 * SMSGate's wire, as its reference server (android-sms-gateway/server, `smsgateway.*` in its
 * OpenAPI document) and official clients send and read it. Objects are not strict: the clients
 * send fields Simgate does not use, and those are accepted silently.
 */

/** SMSGate's message states; a value outside them breaks its Python client. */
export const PROCESSING_STATES = [
  'Pending',
  'Processed',
  'Cancelling',
  'Sent',
  'Delivered',
  'Failed',
  'Cancelled',
] as const;
export type ProcessingState = (typeof PROCESSING_STATES)[number];

/** `priority` at or above this goes out in Simgate's `high` lane (never past credits or pacing). */
export const HIGH_PRIORITY_FROM = 100;
export const MAX_RECIPIENTS = 100;

const timestamp = z.iso.datetime({ offset: true }).openapi({ format: 'date-time' });

export const sendMessageBody = z
  .object({
    id: z.string().trim().min(1).max(36).nullish().openapi({
      description:
        'Your id for the message (idempotency key within the account): a repeat answers 409 and charges nothing. Generated when absent.',
    }),
    deviceId: z.string().max(64).nullish().openapi({
      description: 'The phone (its id in GET /devices) to send from; without it the account’s default group chooses.',
    }),
    textMessage: z
      .object({ text: z.string().min(1).max(MAX_ENCRYPTED_LENGTH) })
      .nullish()
      .openapi({
        description: `The text, 1 to ${MAX_CONTENT_LENGTH} characters (encrypted: up to ${MAX_ENCRYPTED_LENGTH}).`,
      }),
    message: z
      .string()
      .min(1)
      .max(MAX_ENCRYPTED_LENGTH)
      .nullish()
      .openapi({ description: 'The older form of `textMessage.text`.' }),
    dataMessage: z.object({ data: dataSmsBytes, port: dataSmsPort }).nullish().openapi({
      description:
        'A data SMS instead of text (the app’s DataMessage): `data` in base64 (at most 140 bytes) to `port`. Only from a `deviceId` paired with the SMSGate app; any other phone, or no `deviceId`, answers 400.',
    }),
    phoneNumbers: z
      .array(z.union([e164, encryptedValue], { error: 'not a valid E.164 phone number (e.g. +14155550100)' }))
      .min(1)
      .max(MAX_RECIPIENTS)
      .superRefine((numbers, ctx) => {
        if (new Set(numbers).size !== numbers.length)
          ctx.addIssue({ code: 'custom', message: 'numbers must be unique' });
      })
      .openapi({
        description:
          'E.164 numbers, 1 to 100, unique (`skipPhoneValidation` does not relax this); with `isEncrypted`, numbers encrypted with the app’s passphrase.',
      }),
    simNumber: z
      .number()
      .int()
      .min(1)
      .max(SIM_SLOTS.length)
      .nullish()
      .openapi({ description: 'The SIM slot (1 or 2).' }),
    ttl: z.number().int().min(MIN_TTL_SECONDS).max(MAX_TTL_SECONDS).nullish(),
    validUntil: timestamp.nullish(),
    withDeliveryReport: z.boolean().nullish().openapi({ description: 'Accepted; Simgate always follows delivery.' }),
    isEncrypted: z.boolean().nullish().openapi({
      description:
        '`true`: the text and every phone number are encrypted with the passphrase set in the app (`$aes-256-cbc/pbkdf2-sha1$i=…`). Sent as they are, only from `deviceId`, a phone paired with the SMSGate app (required; a simulator phone answers 400); no opt-out or country check, one credit per phone number entry.',
    }),
    priority: z
      .number()
      .int()
      .min(-128)
      .max(127)
      .nullish()
      .openapi({
        description: `${HIGH_PRIORITY_FROM} and above use the high-priority lane; it never bypasses credits or pacing.`,
      }),
    scheduleAt: timestamp.nullish(),
  })
  .superRefine((body, ctx) => {
    const text = body.textMessage?.text ?? body.message;
    if (text !== undefined && text !== null) {
      checkEncryption(
        {
          encrypted: body.isEncrypted === true,
          content: text,
          contentPath: body.textMessage ? ['textMessage', 'text'] : ['message'],
        },
        body.phoneNumbers.map((value, index) => ({ path: ['phoneNumbers', index], value })),
        ctx,
      );
    }
    if (body.isEncrypted === true && !body.deviceId) {
      ctx.addIssue({
        code: 'custom',
        path: ['deviceId'],
        message: 'an encrypted message needs deviceId: a phone paired with the SMSGate app, which holds the passphrase',
      });
    }
    if (!body.textMessage && !body.message && !body.dataMessage) {
      ctx.addIssue({ code: 'custom', path: ['textMessage'], message: 'No message content provided' });
    }
    if (body.ttl != null && body.validUntil != null) {
      ctx.addIssue({ code: 'custom', path: ['validUntil'], message: 'give ttl or validUntil, not both' });
    }
  })
  .openapi('SmsgateMessage');

export type SendMessageBody = z.output<typeof sendMessageBody>;

export const messageParams = z.object({ id: z.string().min(1).max(100) });

export const listMessagesQuery = z.object({
  from: timestamp.optional(),
  to: timestamp.optional(),
  state: z.enum(PROCESSING_STATES).optional(),
  deviceId: z.string().max(64).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(50),
  offset: z.coerce.number().int().min(0).default(0),
  includeContent: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  sort: z.enum(['created_at', '-created_at']).default('-created_at'),
});

export type ListMessagesQuery = z.output<typeof listMessagesQuery>;

export const messageStateSchema = z
  .object({
    id: z.string(),
    deviceId: z.string(),
    state: z.enum(PROCESSING_STATES),
    isHashed: z.boolean(),
    isEncrypted: z.boolean(),
    recipients: z.array(
      z.object({
        phoneNumber: z.string(),
        state: z.enum(PROCESSING_STATES),
        error: z.string().nullable().optional(),
      }),
    ),
    states: z
      .record(z.string(), z.string())
      .openapi({ description: 'When the message entered each state (RFC 3339).' }),
    textMessage: z.object({ text: z.string() }).optional(),
  })
  .openapi('SmsgateMessageState');

export type MessageStateWire = z.output<typeof messageStateSchema>;

export const sendQuery = z.object({
  skipPhoneValidation: z.string().optional().openapi({ description: 'Accepted and ignored: numbers must be E.164.' }),
  deviceActiveWithin: z.string().optional().openapi({ description: 'Accepted and ignored.' }),
});

export const deviceSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    createdAt: z.string(),
    updatedAt: z.string(),
    lastSeen: z.string(),
    deletedAt: z.string().nullable(),
    simCards: z.array(
      z.object({
        simNumber: z.number().int(),
        phoneNumber: z.string().nullable(),
        carrierName: z.string().nullable().optional(),
      }),
    ),
  })
  .openapi('SmsgateDevice');

export const deviceParams = z.object({ id: z.string().min(1).max(100) });

/** SMSGate's webhook events, and what each is in Simgate's event catalogue. */
export const SMSGATE_EVENTS = {
  'sms:received': ['message.received'],
  'sms:sent': ['message.sent'],
  'sms:delivered': ['message.delivered'],
  'sms:failed': ['message.failed', 'message.expired'],
  'system:ping': ['phone.ping'],
} as const;
export type SmsgateEvent = keyof typeof SMSGATE_EVENTS;

export const webhookSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    event: z.string().openapi({
      description: `One of ${Object.keys(SMSGATE_EVENTS).join(', ')}; other SMSGate event names are accepted and never fire.`,
    }),
    deviceId: z.string().nullable(),
  })
  .openapi('SmsgateWebhook');

export const registerWebhookBody = z
  .object({
    id: z.string().trim().min(1).max(64).nullish(),
    url: z.string().max(2048),
    event: z.string().min(1).max(64),
    deviceId: z.string().max(64).nullish(),
  })
  .openapi('SmsgateRegisterWebhook');

export const webhookParams = z.object({ id: z.string().min(1).max(100) });

export const healthSchema = z
  .object({
    status: z.enum(['pass', 'warn', 'fail']),
    version: z.string(),
    releaseId: z.number().int(),
    checks: z.record(
      z.string(),
      z.object({
        description: z.string(),
        observedUnit: z.string(),
        observedValue: z.number(),
        status: z.enum(['pass', 'warn', 'fail']),
      }),
    ),
  })
  .openapi('SmsgateHealth');

export const settingsDocument = z.record(z.string(), z.unknown()).openapi('SmsgateSettings', {
  description:
    'SMSGate’s settings document (`messages`, `webhooks`, `ping`, `logs`, …, snake_case keys). Mapped: `messages.limit_period`/`limit_value` onto every phone’s pacing (PerMinute: `messages_per_minute`; PerHour: `hourly_cap`, clearing `daily_cap`; PerDay: `daily_cap`, clearing `hourly_cap`; Disabled: neither cap; read back from the phones while they all agree), `messages.work_hours_*` onto the account’s send window (UTC), `webhooks.signing_key` onto the key that signs SMSGate-format webhooks. Everything else is stored and echoed back.',
});

export const tokenRequestBody = z
  .object({
    scopes: z
      .array(z.enum(SMSGATE_SCOPES))
      .min(1)
      .max(SMSGATE_SCOPES.length * 2)
      .openapi({ description: 'What the token may do, one scope per operation kind (`messages:send`, …).' }),
    ttl: z
      .number()
      .int()
      .min(0)
      .max(2 ** 31)
      .nullish()
      .openapi({
        description: `The access token’s lifetime in seconds: 0 or absent for ${ACCESS_TTL_DEFAULT_S}; longer than ${ACCESS_TTL_MAX_S} is cut to ${ACCESS_TTL_MAX_S}.`,
      }),
  })
  .openapi('SmsgateTokenRequest');

export const tokenResponseSchema = z
  .object({
    id: z.string().openapi({ description: 'The access token’s `jti`: DELETE /auth/token/{jti} revokes it.' }),
    token_type: z.literal('Bearer'),
    access_token: z.string(),
    refresh_token: z.string().openapi({
      description: `POST /auth/token/refresh with it as Bearer (once; valid ${REFRESH_TTL_S / 86400} days).`,
    }),
    expires_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('SmsgateTokenResponse');

export const tokenParams = z.object({ jti: z.string().min(1).max(64) });

/** SMSGate's kinds of received message (`smsgateway.IncomingMessageType`): the app's own list. */
export const INCOMING_MESSAGE_TYPES = INBOX_MESSAGE_TYPES;
export type IncomingMessageType = (typeof INCOMING_MESSAGE_TYPES)[number];

export const inboxQuery = z.object({
  type: z.enum(INCOMING_MESSAGE_TYPES).optional(),
  from: timestamp.optional().openapi({ description: 'Received at or after this time.' }),
  to: timestamp.optional().openapi({ description: 'Received before this time.' }),
  deviceId: z.string().max(64).optional().openapi({ description: 'Only messages received by this phone.' }),
  limit: z.coerce.number().int().min(1).max(500).default(50),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});
export type InboxQuery = z.output<typeof inboxQuery>;

export const incomingMessageSchema = z
  .object({
    id: z.string(),
    type: z.enum(INCOMING_MESSAGE_TYPES),
    sender: z.string(),
    recipient: z.string().optional().openapi({ description: 'The number of the phone that received it.' }),
    simNumber: z.number().int().optional(),
    contentPreview: z.string().openapi({ description: 'The text as received (empty once retention purged it).' }),
    createdAt: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('SmsgateIncomingMessage');
export type IncomingMessageWire = z.output<typeof incomingMessageSchema>;

/** At most this many entries answer one GET /logs. */
export const MAX_LOG_ENTRIES = 1000;

export const logsQuery = z.object({
  from: timestamp.optional().openapi({ description: 'Entries at or after this time (default: a day before `to`).' }),
  to: timestamp.optional().openapi({ description: 'Entries before this time (default: now).' }),
});

export const LOG_PRIORITIES = ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const;

export const logEntrySchema = z
  .object({
    id: z.number().int(),
    createdAt: z.string().openapi({ format: 'date-time' }),
    module: z.string(),
    priority: z.enum(LOG_PRIORITIES),
    message: z.string(),
    context: z.record(z.string(), z.unknown()),
  })
  .openapi('SmsgateLogEntry');
export type LogEntryWire = z.output<typeof logEntrySchema>;

/** smsgateway.InboxRefreshRequest (the reference's OpenAPI document, internal/sms-gateway/openapi/docs.go). */
export const inboxRefreshBody = z
  .object({
    deviceId: z.string().max(64).nullish().openapi({
      description: 'The phone (its id in GET /devices); without it every phone of the account connected over SSE.',
    }),
    since: timestamp,
    until: timestamp,
    messageTypes: z.array(z.enum(INCOMING_MESSAGE_TYPES)).min(1).max(4).nullish(),
    triggerWebhooks: z.boolean().nullish(),
    webhookDelivery: z.enum(['Disabled', 'Individual', 'Batch']).nullish(),
  })
  .openapi('SmsGateInboxRefreshRequest');
