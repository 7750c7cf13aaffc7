import { ENCODINGS, MESSAGE_DIRECTIONS, MESSAGE_KINDS, MESSAGE_STATUSES } from '@/db/schema';
import { pageQuery } from '@/lib/pagination';
import { e164 } from '@/lib/phone-number';
import { z } from '@/lib/zod';
import {
  MAX_BULK_RECIPIENTS,
  MAX_CONTENT_LENGTH,
  MAX_REQUEST_ID_LENGTH,
  MAX_TTL_SECONDS,
  MIN_TTL_SECONDS,
} from './limits';

const content = z
  .string()
  .min(1)
  .max(MAX_CONTENT_LENGTH)
  .openapi({ description: `Message text, 1 to ${MAX_CONTENT_LENGTH} characters.`, example: 'Your table is ready.' });

const sendAt = z.iso
  .datetime({ offset: true })
  .transform((value) => new Date(value))
  .optional()
  .openapi({
    type: 'string',
    format: 'date-time',
    description: 'When the phone may send it (RFC 3339): at most a minute in the past, at most 30 days ahead.',
  });

const ttl = z
  .number()
  .int()
  .min(MIN_TTL_SECONDS)
  .max(MAX_TTL_SECONDS)
  .optional()
  .openapi({
    description: `Seconds after send_at before an unsent message expires (and is refunded); ${MIN_TTL_SECONDS} to ${MAX_TTL_SECONDS}, default 86400.`,
  });

export const sendMessageBody = z
  .strictObject({
    from: e164.openapi({ description: "A phone of the caller's account." }),
    to: e164,
    content,
    request_id: z
      .string()
      .min(1)
      .max(MAX_REQUEST_ID_LENGTH)
      .optional()
      .openapi({ description: 'Idempotency key, unique per account: a repeat answers 409 DUPLICATE_REQUEST.' }),
    send_at: sendAt,
    ttl_s: ttl,
  })
  .openapi('SendMessage');

export const sendBulkBody = z
  .strictObject({
    from: e164.openapi({ description: "A phone of the caller's account." }),
    recipients: z
      .array(e164)
      .min(1)
      .max(MAX_BULK_RECIPIENTS)
      .openapi({ description: `1 to ${MAX_BULK_RECIPIENTS} E.164 numbers; repeats are sent once.` }),
    content,
    send_at: sendAt,
    ttl_s: ttl,
  })
  .openapi('SendBulkMessage');

export const messageIdParams = z.object({ id: z.uuid().openapi({ description: 'Message id.' }) });
export const bulkIdParams = z.object({ id: z.uuid().openapi({ description: 'Bulk message id.' }) });

const timestamp = z.iso
  .datetime({ offset: true })
  .transform((value) => new Date(value))
  .openapi({ type: 'string', format: 'date-time' });

// An unencoded `+` in a query string arrives as a space: `?phone=+1415…` reads ` 1415…` and an
// offset `+02:00` reads ` 02:00`. Neither a number nor an RFC 3339 time has a space of its own.
const restorePlus = (value: unknown) => (typeof value === 'string' ? value.replace(/ /g, '+') : value);
const queryPhone = z.preprocess(restorePlus, e164);
const queryTimestamp = z.preprocess(restorePlus, timestamp);

export const messageListQuery = pageQuery.extend({
  status: z.enum(MESSAGE_STATUSES).optional(),
  direction: z.enum(MESSAGE_DIRECTIONS).optional(),
  phone: queryPhone.optional().openapi({ description: 'Only messages of this phone of the account (E.164).' }),
  created_after: queryTimestamp.optional().openapi({ description: 'Only messages created at or after this time.' }),
  created_before: queryTimestamp.optional().openapi({ description: 'Only messages created before this time.' }),
});

export const claimBody = z
  .strictObject({
    limit: z
      .number()
      .int()
      .min(1)
      .max(100)
      .default(10)
      .openapi({ description: 'Most messages to hand out, 1 to 100 (default 10).' }),
  })
  .openapi('ClaimOutbox');

export const claimQuery = z.object({
  wait: z.coerce
    .number()
    .int()
    .min(0)
    .max(30)
    .default(0)
    .openapi({ description: 'Seconds to wait for a message when none is queued (0 to 30).' }),
});

export const DEVICE_REPORTED_STATUSES = ['sent', 'delivered', 'failed'] as const;

export const statusReportBody = z
  .strictObject({
    status: z.enum(DEVICE_REPORTED_STATUSES),
    error: z.string().max(500).optional().openapi({ description: 'Why the message failed, as the phone saw it.' }),
  })
  .openapi('MessageStatusReport');

/** A received SMS comes from a number, a short code or an alphanumeric sender id. */
const inboundSender = z
  .string()
  .trim()
  .min(1)
  .max(32)
  .transform((value, ctx) => {
    if (value.startsWith('+')) {
      const parsed = e164.safeParse(value);
      if (parsed.success) return parsed.data;
    } else if (/^[0-9]{3,15}$/.test(value) || /^[A-Za-z0-9][A-Za-z0-9 ._-]{0,10}$/.test(value)) {
      return value;
    }
    ctx.addIssue({ code: 'custom', message: 'not an E.164 number, short code or sender id' });
    return z.NEVER;
  })
  .openapi({ type: 'string', example: '+14155550123', description: 'E.164 number, short code or sender id.' });

export const receivedBody = z
  .strictObject({
    from: inboundSender,
    content: z.string().min(1).max(MAX_CONTENT_LENGTH),
    received_at: timestamp.optional().openapi({ description: 'When the phone received it; now when absent.' }),
    device_message_id: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .openapi({ description: "The phone's own id of the SMS: a retry with it answers the same message." }),
  })
  .openapi('ReceivedMessage');

const historyEntry = z.object({
  status: z.enum(MESSAGE_STATUSES),
  at: z.string().openapi({ format: 'date-time' }),
  error: z.string().optional(),
});

export const messageSchema = z
  .object({
    id: z.uuid(),
    kind: z.enum(MESSAGE_KINDS).openapi({
      description:
        '`message` for everything sent or received; `sim_check` for the free loopback SMS that proves the SIM of a phone paired with the SMSGate app (its text, which holds the code, is shown only to the phone).',
    }),
    direction: z.enum(MESSAGE_DIRECTIONS),
    from: z.string(),
    to: z.string(),
    content: z.string(),
    status: z.enum(MESSAGE_STATUSES),
    segments: z.number().int(),
    encoding: z.enum(ENCODINGS),
    request_id: z.string().nullable(),
    bulk_id: z.uuid().nullable(),
    send_at: z.string().nullable().openapi({ format: 'date-time' }),
    expires_at: z.string().nullable().openapi({ format: 'date-time' }),
    error: z.string().nullable(),
    created_at: z.string().openapi({ format: 'date-time' }),
    updated_at: z.string().openapi({ format: 'date-time' }),
    history: z.array(historyEntry).optional().openapi({ description: 'Every state with its time (read by id).' }),
  })
  .openapi('Message');

export const bulkCreatedSchema = z
  .object({
    id: z.uuid(),
    count: z.number().int(),
    message_ids: z.array(z.uuid()),
    segments: z.number().int().openapi({ description: 'Segments of each message.' }),
    encoding: z.enum(ENCODINGS),
  })
  .openapi('BulkMessageCreated');

export const bulkSchema = z
  .object({
    id: z.uuid(),
    from: z.string(),
    count: z.number().int(),
    created_at: z.string().openapi({ format: 'date-time' }),
    counts: z.object({
      queued: z.number().int(),
      dispatched: z.number().int(),
      sent: z.number().int(),
      delivered: z.number().int(),
      failed: z.number().int(),
      expired: z.number().int(),
    }),
  })
  .openapi('BulkMessage');

export const claimAnswerSchema = z.object({ data: z.array(messageSchema) }).openapi('ClaimAnswer');
