import { z } from '@/lib/zod';

/**
 * The SMSGate app's JSON (camelCase; Gson leaves null fields out, so every optional field may be
 * absent). Objects are loose: the app sends fields of its own, which are ignored, never refused.
 * Source: the app's GatewayApi.kt and webhooks payload classes (shared/notes/smsgate.md).
 */
const text = (max: number) => z.string().max(max);

export const appSimCard = z.looseObject({
  slotIndex: z.number().int().min(0).max(16).optional(),
  simNumber: z.number().int().min(1).max(17).optional(),
  phoneNumber: text(64).nullish(),
  carrierName: text(128).nullish(),
  iccid: text(64).nullish(),
});

export const registerDeviceBody = z
  .looseObject({
    name: text(200).nullish(),
    pushToken: text(4096).nullish(),
    simCards: z.array(appSimCard).max(8).nullish(),
  })
  .openapi('SmsGateRegisterDevice');

export const patchDeviceBody = z
  .looseObject({
    id: text(64),
    pushToken: text(4096).nullish(),
    simCards: z.array(appSimCard).max(8).nullish(),
  })
  .openapi('SmsGatePatchDevice');

export const APP_STATES = ['Pending', 'Cancelling', 'Cancelled', 'Processed', 'Sent', 'Delivered', 'Failed'] as const;
export type AppState = (typeof APP_STATES)[number];

const recipientState = z.looseObject({
  phoneNumber: text(128).nullish(),
  state: text(32).nullish(),
  error: text(2000).nullish(),
});

/** One state report. Parsed item by item: a malformed item is skipped, never the whole batch. */
export const stateReport = z
  .looseObject({
    id: text(64),
    state: z.enum(APP_STATES),
    recipients: z.array(recipientState).max(100).nullish(),
    states: z.record(z.string(), z.unknown()).nullish(),
  })
  .openapi('SmsGateMessageState');

export const stateReportsBody = z
  .array(z.unknown())
  .max(1000)
  .openapi({
    type: 'array',
    items: { $ref: '#/components/schemas/SmsGateMessageState' },
    description: 'State reports; the app sends one at a time. Unknown or foreign ids are skipped.',
  });

export const pullQuery = z.object({
  order: z.enum(['lifo', 'fifo']).default('lifo').openapi({
    description: '`lifo` (the app’s default): newest first; `fifo`: oldest first.',
  }),
});

/** The webhook events the app is handed (modules/webhooks/domain/WebHookEvent.kt). */
export const APP_EVENTS = [
  'sms:received',
  'sms:sent',
  'sms:delivered',
  'sms:failed',
  'system:ping',
  'sms:data-received',
  'mms:received',
  'mms:downloaded',
  'app:started',
  'sms:cancelled',
] as const;
export type AppEvent = (typeof APP_EVENTS)[number];

/** The body of every webhook call the app makes: `{ id, webhookId, event, deviceId, payload }`. */
export const callbackEnvelope = z.looseObject({
  id: text(64),
  webhookId: text(128).nullish(),
  event: text(64),
  deviceId: text(64).nullish(),
  payload: z.record(z.string(), z.unknown()),
});

/** The app writes `yyyy-MM-dd'T'HH:mm:ss.SSSXXX`; old Androids write odd offsets, read as "unknown". */
const appDate = z
  .string()
  .max(64)
  .transform((value) => {
    const date = new Date(value);
    return Number.isNaN(date.getTime()) ? undefined : date;
  });

export const receivedPayload = z.looseObject({
  messageId: text(128),
  message: z.string().max(10_000),
  sender: text(8192).nullish(),
  phoneNumber: text(8192).nullish(),
  receivedAt: appDate.nullish(),
  isEncrypted: z.boolean().nullish(),
});

/** `sms:data-received` (SmsEventPayload.SmsDataReceived): `data` is the SMS's bytes in base64. */
export const dataReceivedPayload = z.looseObject({
  messageId: text(128),
  data: z.base64().max(10_000),
  sender: text(128).nullish(),
  phoneNumber: text(128).nullish(),
  receivedAt: appDate.nullish(),
});

/** `mms:received` (MmsReceivedPayload): the MMS notification, before its content is downloaded. */
export const mmsReceivedPayload = z.looseObject({
  messageId: text(128),
  sender: text(128).nullish(),
  phoneNumber: text(128).nullish(),
  transactionId: text(256).nullish(),
  subject: text(1000).nullish(),
  size: z.number().int().min(0).nullish(),
  contentClass: text(128).nullish(),
  receivedAt: appDate.nullish(),
});

/** `mms:downloaded` (MmsDownloadedPayload): the MMS's text and its attachments (their bytes are not kept). */
export const mmsDownloadedPayload = z.looseObject({
  messageId: text(128),
  sender: text(128).nullish(),
  phoneNumber: text(128).nullish(),
  body: z.string().max(10_000).nullish(),
  subject: text(1000).nullish(),
  attachments: z
    .array(
      z.looseObject({
        contentType: text(256).nullish(),
        name: text(1000).nullish(),
        size: z.number().int().min(0).nullish(),
      }),
    )
    .max(100)
    .nullish(),
  receivedAt: appDate.nullish(),
});

export const statusPayload = z.looseObject({
  messageId: text(64),
  reason: text(2000).nullish(),
});

export const pingPayload = z.looseObject({
  health: z
    .looseObject({
      checks: z.record(z.string(), z.looseObject({ observedValue: z.number().nullish() }).nullish()).nullish(),
    })
    .nullish(),
});

export const callbackParams = z.object({ deviceId: z.uuid().openapi({ description: 'The paired device.' }) });

export const registeredDevice = z
  .object({
    id: z.string().openapi({ description: 'The device id: the app sends it back as `deviceId`.' }),
    token: z.string().openapi({ description: 'The device credential (`dk_…`): `Authorization: Bearer <token>`.' }),
    login: z.string().openapi({ description: 'The phone number the app was paired with.' }),
  })
  .openapi('SmsGateRegisteredDevice');

export const appMessage = z
  .object({
    id: z.string(),
    message: z.string().optional().openapi({ description: 'The text again, for older app versions.' }),
    textMessage: z.object({ text: z.string() }).optional().openapi({ description: 'A text SMS.' }),
    dataMessage: z
      .object({ data: z.string(), port: z.number().int() })
      .optional()
      .openapi({ description: 'A data SMS instead: its bytes in base64 and the destination port.' }),
    phoneNumbers: z.array(z.string()),
    withDeliveryReport: z.boolean(),
    isEncrypted: z.boolean().openapi({
      description: '`true`: `textMessage.text` and `phoneNumbers` are encrypted with the passphrase set in the app.',
    }),
    validUntil: z.string().openapi({ format: 'date-time' }),
    createdAt: z.string().openapi({ format: 'date-time' }),
    state: z.enum(['Pending', 'Cancelling']).openapi({
      description:
        '`Cancelling`: a message the phone holds was cancelled; the app drops it if not sent yet and PATCHes `Cancelled`.',
    }),
  })
  .openapi('SmsGateMessage');

export const appSettings = z
  .object({
    gateway: z.object({ notification_channel: z.literal('SSE_ONLY') }),
    ping: z.object({ interval_seconds: z.number().int() }),
    webhooks: z.object({ signing_key: z.string() }),
  })
  .openapi('SmsGateSettings');

export const appWebhook = z
  .object({ id: z.string(), url: z.string(), event: z.enum(APP_EVENTS) })
  .openapi('SmsGateWebhook');

/** The app's IncomingMessageType (modules/incoming/db/IncomingMessage.kt). */
export const INBOX_MESSAGE_TYPES = ['SMS', 'DATA_SMS', 'MMS', 'MMS_DOWNLOADED'] as const;

export const inboxExportBody = z
  .strictObject({
    since: z.iso.datetime({ offset: true }).openapi({ description: 'Start of the period (RFC 3339).' }),
    until: z.iso
      .datetime({ offset: true })
      .openapi({ description: 'End of the period (RFC 3339), at most 30 days after `since`.' }),
    message_types: z
      .array(z.enum(INBOX_MESSAGE_TYPES))
      .min(1)
      .max(4)
      .optional()
      .openapi({ description: 'What the app sends again (its IncomingMessageType); `["SMS"]` by default.' }),
  })
  .openapi('InboxExportRequest');

export const inboxExportSchema = z
  .object({
    id: z.uuid(),
    phone_id: z.uuid(),
    since: z.string().openapi({ format: 'date-time' }),
    until: z.string().openapi({ format: 'date-time' }),
    message_types: z.array(z.enum(INBOX_MESSAGE_TYPES)),
    recovered: z
      .number()
      .int()
      .openapi({ description: 'Re-sent SMS that were missing: each is a new inbound message.' }),
    repeated: z.number().int().openapi({ description: 'Re-sent SMS Simgate already had: nothing new.' }),
    created_at: z.string().openapi({ format: 'date-time' }),
    counting_until: z
      .string()
      .openapi({ format: 'date-time', description: 'Re-sent SMS arriving after this are no longer counted here.' }),
  })
  .openapi('InboxExport');
