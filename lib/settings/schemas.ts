import { ACCOUNT_QUEUE_DEFAULT, INBOUND_DEDUP_RANGE, MAX_ATTEMPTS_RANGE } from '@/db/schema';
import { isKnownCountryCode } from '@/lib/phone-number';
import { z } from '@/lib/zod';
import { isTimeZone, WEEKDAYS } from './window';

const hhmm = z
  .string()
  .regex(/^(([01]\d|2[0-3]):[0-5]\d|24:00)$/, 'a time of day as HH:MM (00:00 to 24:00)')
  .openapi({ example: '08:00' });

export const sendWindowSchema = z
  .strictObject({
    time_zone: z
      .string()
      .refine(isTimeZone, 'not an IANA time zone name (e.g. Europe/Berlin)')
      .openapi({ example: 'America/New_York' }),
    days: z
      .array(z.enum(WEEKDAYS))
      .min(1, 'at least one day')
      .refine((days) => new Set(days).size === days.length, 'a day appears twice')
      .openapi({ example: ['mon', 'tue', 'wed', 'thu', 'fri'] }),
    start: hhmm,
    end: hhmm.openapi({ example: '21:00' }),
  })
  .refine((window) => window.start < window.end, { message: 'must be after start', path: ['end'] })
  .openapi({
    description:
      'Quiet hours: outside this window a phone is handed no `normal`-priority message (a long-polling phone sleeps until it opens); `high` priority ignores it. A message’s TTL still counts from its `send_at`, so a message that waits through the night may expire.',
  });

const countries = z
  .array(
    z
      .string()
      .transform((code) => code.toUpperCase())
      .refine(isKnownCountryCode, 'not an ISO 3166-1 alpha-2 country code'),
  )
  .min(1)
  .max(250)
  .transform((list) => [...new Set(list)])
  .openapi({
    example: ['US', 'CA'],
    description:
      'Countries a message may be sent to (ISO 3166-1 alpha-2); others answer 422 RECIPIENT_COUNTRY_NOT_ALLOWED and charge nothing. null: any country.',
  });

const maxAttempts = z
  .number()
  .int()
  .min(MAX_ATTEMPTS_RANGE.min)
  .max(MAX_ATTEMPTS_RANGE.max)
  .openapi({
    description: `Tries per message when a failure may be fixed by retrying (${MAX_ATTEMPTS_RANGE.min} to ${MAX_ATTEMPTS_RANGE.max}, default ${MAX_ATTEMPTS_RANGE.default}).`,
  });

const maxQueuedMessages = z
  .number()
  .int()
  .min(1)
  .openapi({
    description: `The most messages the account holds queued at once (default ${ACCOUNT_QUEUE_DEFAULT.toLocaleString('en')}, at most the instance’s \`ACCOUNT_MAX_QUEUED\`): a send that would pass it answers 429 \`QUEUE_FULL\` with \`Retry-After\`, before any credit moves.`,
  });

const smartEncoding = z.boolean().openapi({
  description:
    'The default of a send’s `smart_encoding`: characters that only look like GSM-7 (curly quotes, long dashes, non-breaking and zero-width spaces, ellipsis, …) are replaced before segments are counted (default false).',
});

const inboundDedupSeconds = z
  .number()
  .int()
  .min(INBOUND_DEDUP_RANGE.min)
  .max(INBOUND_DEDUP_RANGE.max)
  .openapi({
    description: `An inbound SMS from the same sender with the same text to the same phone within this many seconds of one recorded is a duplicate: answered 2xx naming \`duplicate_of\`, stored as nothing new, reacted to by no webhook, rule or opt-out (${INBOUND_DEDUP_RANGE.min} to ${INBOUND_DEDUP_RANGE.max}, default ${INBOUND_DEDUP_RANGE.default}; 0 turns it off, for senders such as GPS trackers whose every report counts).`,
  });

export const sendingSettingsSchema = z
  .object({
    send_window: sendWindowSchema.nullable(),
    max_attempts: maxAttempts,
    allowed_countries: z.array(z.string()).nullable(),
    max_queued_messages: maxQueuedMessages,
    smart_encoding: smartEncoding,
    inbound_dedup_seconds: inboundDedupSeconds,
  })
  .openapi('SendingSettings');

/** The account-wide settings, which a group does not override. */
export const ACCOUNT_ONLY_SENDING = ['max_queued_messages', 'smart_encoding', 'inbound_dedup_seconds'] as const;

export type SendingSettings = z.infer<typeof sendingSettingsSchema>;

export const sendingSettingsBody = z
  .strictObject({
    send_window: sendWindowSchema.nullable().optional(),
    max_attempts: maxAttempts.optional(),
    allowed_countries: countries.nullable().optional(),
    max_queued_messages: maxQueuedMessages.optional(),
    smart_encoding: smartEncoding.optional(),
    inbound_dedup_seconds: inboundDedupSeconds.optional(),
  })
  .openapi('UpdateSendingSettings');

/** A group's overrides: a key set to `"inherit"` drops the override, so the account's setting applies. */
const inherit = z.literal('inherit');
export const groupSendingBody = z
  .strictObject({
    send_window: z.union([sendWindowSchema, z.null(), inherit]).optional(),
    max_attempts: z.union([maxAttempts, inherit]).optional(),
    allowed_countries: z.union([countries, z.null(), inherit]).optional(),
  })
  .openapi('GroupSendingOverrides', {
    description:
      'Overrides of the account’s sending settings for this group (not the default group): a key given wins for the group’s phones and sends, `"inherit"` removes the override.',
  });
