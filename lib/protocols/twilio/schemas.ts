import { z } from '@/lib/zod';

/**
 * Twilio's Messages API in zod: form fields in (all strings; Twilio's own names, PascalCase), JSON
 * out (snake_case). Objects are not strict: a parameter Simgate does not know is ignored, as Twilio
 * ignores it. A field given twice arrives as an array, which a one-value field refuses.
 */
const one = (description: string) => z.string().max(2000).openapi({ description });

export const TWILIO_VALIDITY_MAX_SECONDS = 36_000;

export const createMessageBody = z
  .object({
    To: one('The recipient, E.164 (`whatsapp:` and other channels are refused).'),
    From: one('One of the account’s phones (E.164). Give this or `MessagingServiceSid`.').optional(),
    MessagingServiceSid: z.string().max(64).optional().openapi({
      description: 'A phone group’s `messaging_service_sid` (`MG…`): sent through the group, with failover.',
    }),
    Body: z.string().max(20_000).optional().openapi({ description: 'The text, 1 to 1600 characters.' }),
    StatusCallback: one('An https URL that receives Twilio’s status callbacks, signed with the Auth Token.').optional(),
    ValidityPeriod: z
      .string()
      .regex(/^\d{1,6}$/, 'an integer number of seconds')
      .optional()
      .openapi({ description: 'Seconds, 1 to 36000: the message’s TTL (Simgate keeps at least 60).' }),
    SendAt: one('With `ScheduleType=fixed`: when to send (ISO 8601), at most 30 days ahead.').optional(),
    ScheduleType: z.literal('fixed').optional().openapi({ description: '`fixed`, with `SendAt`.' }),
    MediaUrl: z
      .union([z.string(), z.array(z.string())])
      .optional()
      .openapi({ description: 'Refused: MMS is not supported (21620).' }),
    MaxPrice: z.string().optional().openapi({ description: 'Accepted and ignored.' }),
    Attempt: z.string().optional().openapi({ description: 'Accepted and ignored.' }),
    SmartEncoded: z.string().optional().openapi({ description: 'Accepted and ignored.' }),
  })
  .openapi('TwilioCreateMessage');

export type CreateMessageInput = z.output<typeof createMessageBody>;

export const updateMessageBody = z
  .object({
    Status: z
      .literal('canceled')
      .optional()
      .openapi({ description: '`canceled` cancels a queued or scheduled message.' }),
    Body: z.string().optional().openapi({ description: 'An empty `Body` removes the content of a final message.' }),
  })
  .openapi('TwilioUpdateMessage');

const dateFilter = z.string().max(40).optional().openapi({ description: 'A date (`YYYY-MM-DD`) or an ISO 8601 time.' });

export const listMessagesQuery = z.object({
  To: z.string().max(40).optional().openapi({ description: 'Only messages to this number.' }),
  From: z.string().max(40).optional().openapi({ description: 'Only messages from this number.' }),
  DateSent: dateFilter,
  'DateSent<': dateFilter,
  'DateSent>': dateFilter,
  PageSize: z.coerce.number().int().min(1).max(1000).default(50).openapi({ description: '1 to 1000, default 50.' }),
  Page: z.coerce
    .number()
    .int()
    .min(0)
    .max(1_000_000)
    .default(0)
    .openapi({ description: 'The page number (informative).' }),
  PageToken: z
    .string()
    .max(200)
    .optional()
    .openapi({ description: 'Where the page starts: given by `next_page_uri`.' }),
});

export type ListMessagesQuery = z.output<typeof listMessagesQuery>;

export const accountParams = z.object({
  accountSid: z.string().max(64).openapi({ description: 'The Account SID (`AC…`).' }),
});
export const accountJsonParams = z.object({
  accountSid: z.string().max(70).openapi({ description: 'The Account SID with `.json` (`AC….json`).' }),
});
export const messageParams = accountParams.extend({
  messageSid: z.string().max(70).openapi({ description: 'The message’s SID with `.json` (`SM….json`).' }),
});

export const TWILIO_STATUSES = [
  'queued',
  'scheduled',
  'sending',
  'sent',
  'delivered',
  'undelivered',
  'failed',
  'canceled',
  'received',
] as const;
export type TwilioStatus = (typeof TWILIO_STATUSES)[number];

export const messageResource = z
  .object({
    sid: z.string().openapi({ example: 'SM0f8a3c1d2e4b4f6a8b9c0d1e2f3a4b5c' }),
    account_sid: z.string(),
    api_version: z.literal('2010-04-01'),
    messaging_service_sid: z.string().nullable(),
    to: z.string(),
    from: z.string(),
    body: z.string(),
    status: z.enum(TWILIO_STATUSES),
    direction: z.enum(['outbound-api', 'inbound', 'outbound-reply']),
    num_segments: z.string(),
    num_media: z.literal('0'),
    error_code: z.number().int().nullable().openapi({ description: 'Twilio’s 30xxx delivery code of a failure.' }),
    error_message: z.string().nullable(),
    price: z.null(),
    price_unit: z.null(),
    date_created: z.string().nullable().openapi({ description: 'RFC 2822.' }),
    date_sent: z.string().nullable(),
    date_updated: z.string().nullable(),
    uri: z.string(),
    subresource_uris: z.object({ media: z.string() }),
  })
  .openapi('TwilioMessage');

export type MessageResource = z.infer<typeof messageResource>;

const pageMeta = {
  page: z.number().int(),
  page_size: z.number().int(),
  uri: z.string(),
  first_page_uri: z.string(),
  next_page_uri: z.string().nullable(),
  previous_page_uri: z.string().nullable(),
  start: z.number().int(),
  end: z.number().int(),
};

export const messagePage = z.object({ messages: z.array(messageResource), ...pageMeta }).openapi('TwilioMessagePage');

export const errorBody = z
  .object({
    code: z.number().int().openapi({ example: 21211 }),
    message: z.string(),
    more_info: z.string().openapi({ example: 'https://www.twilio.com/docs/errors/21211' }),
    status: z.number().int(),
  })
  .openapi('TwilioError');

export const accountResource = z
  .object({
    sid: z.string(),
    owner_account_sid: z.string(),
    friendly_name: z.string(),
    status: z.literal('active'),
    type: z.literal('Full'),
    date_created: z.string().nullable(),
    date_updated: z.string().nullable(),
    uri: z.string(),
    subresource_uris: z.record(z.string(), z.string()),
  })
  .openapi('TwilioAccount');

export const incomingNumber = z
  .object({
    sid: z.string().openapi({ description: '`PN…`, from the phone’s id.' }),
    account_sid: z.string(),
    phone_number: z.string(),
    friendly_name: z.string(),
    capabilities: z.object({ sms: z.boolean(), mms: z.boolean(), voice: z.boolean(), fax: z.boolean() }),
    status: z.literal('in-use'),
    date_created: z.string().nullable(),
    date_updated: z.string().nullable(),
    uri: z.string(),
  })
  .openapi('TwilioIncomingPhoneNumber');

export const incomingNumberPage = z
  .object({ incoming_phone_numbers: z.array(incomingNumber), ...pageMeta })
  .openapi('TwilioIncomingPhoneNumberPage');

export const credentialsSchema = z
  .object({
    account_sid: z.string().openapi({ example: 'AC5ef8732a3c49700934481addd5ce1659' }),
    auth_token: z.string().openapi({ description: 'Shown once. Creating another replaces it at once.' }),
  })
  .openapi('TwilioCredentials');

export const settingsSchema = z
  .object({
    account_sid: z.string(),
    has_auth_token: z
      .boolean()
      .openapi({ description: 'Whether an Auth Token exists (it is shown only when created).' }),
  })
  .openapi('TwilioSettings');
