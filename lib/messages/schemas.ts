import {
  ENCODINGS,
  HELD_REASONS,
  HISTORY_STATUSES,
  MESSAGE_DIRECTIONS,
  MESSAGE_KINDS,
  MESSAGE_PRIORITIES,
  MESSAGE_STATUSES,
  SIM_SLOTS,
} from '@/db/schema';
import { AUTOMATION_ACTIONS, AUTOMATION_SKIP_REASONS, MESSAGE_ORIGIN_KINDS } from '@/db/schema/automation-record';
import { CONTACT_LIMITS, contactRefSchema, contactTag } from '@/lib/contacts/schemas';
import { isSmsGateEncrypted } from '@/lib/crypto/smsgate-format';
import { pageQuery } from '@/lib/pagination';
import { e164 } from '@/lib/phone-number';
import { queryPhone, queryTimestamp, timestamp } from '@/lib/query-params';
import { webhookUrl } from '@/lib/webhooks/url';
import { z } from '@/lib/zod';
import { DATA_SMS_MAX_BYTES, dataSmsBytes, dataSmsPort } from './data-sms';
import { RETRYABLE_ERRORS } from './failures';
import {
  MAX_BULK_RECIPIENTS,
  MAX_CONTENT_LENGTH,
  MAX_ENCRYPTED_LENGTH,
  MAX_REQUEST_ID_LENGTH,
  MAX_TTL_SECONDS,
  MIN_TTL_SECONDS,
} from './limits';

const content = z
  .string()
  .min(1)
  .max(MAX_ENCRYPTED_LENGTH)
  .openapi({
    description: `Message text, 1 to ${MAX_CONTENT_LENGTH} characters; with \`encrypted: true\`, the text encrypted in the SMSGate app's format (up to ${MAX_ENCRYPTED_LENGTH} characters).`,
    example: 'Your table is ready.',
  });

const NOT_ENCRYPTED =
  "not in the SMSGate app's encrypted format ($aes-256-cbc/pbkdf2-sha1$i=<iterations>$<salt>$<data>)";

/** A value in the SMSGate app's encrypted format (lib/crypto/smsgate-format.ts). */
export const encryptedValue = z
  .string()
  .max(MAX_ENCRYPTED_LENGTH)
  .refine(isSmsGateEncrypted, { message: NOT_ENCRYPTED })
  .openapi({ example: '$aes-256-cbc/pbkdf2-sha1$i=75000$AAECAwQFBgcICQoLDA0ODw==$f0s3…' });

const encrypted = z.boolean().optional().openapi({
  description: `\`content\` and the recipients are encrypted in the SMSGate app's format (AES-256-CBC, key from PBKDF2-SHA1: \`$aes-256-cbc/pbkdf2-sha1$i=<iterations>$<base64 salt>$<base64 data>\`, the 16-byte salt also the IV) with the passphrase set in the app. Simgate stores and forwards them as they are and sends them only from \`from\`, a phone paired with the SMSGate app (any other phone, and \`from_group\`, answer 400). It cannot read the numbers, so it checks no opt-out, allowed country or template, and charges one credit per recipient entry, whatever number it hides (a repeated ciphertext counts once; two encryptions of one number are two entries). \`segments\` and \`encoding\` read 1 and GSM-7.`,
});

/** Plain sends keep their bounds; encrypted ones carry ciphertext everywhere (the phone decrypts). */
export function checkEncryption(
  body: { encrypted?: boolean; content?: string; contentPath?: string[] },
  recipients: Array<{ path: (string | number)[]; value: unknown }>,
  ctx: z.RefinementCtx,
): void {
  if (body.encrypted === true) {
    if (!isSmsGateEncrypted(body.content ?? '')) {
      ctx.addIssue({ code: 'custom', path: body.contentPath ?? ['content'], message: NOT_ENCRYPTED });
    }
    for (const { path, value } of recipients) {
      if (typeof value !== 'string' || !isSmsGateEncrypted(value)) {
        ctx.addIssue({
          code: 'custom',
          path,
          message: "with encrypted: true, each recipient is a number encrypted in the SMSGate app's format (no vars)",
        });
      }
    }
    return;
  }
  if ((body.content?.length ?? 0) > MAX_CONTENT_LENGTH) {
    ctx.addIssue({
      code: 'custom',
      path: body.contentPath ?? ['content'],
      message: `must be 1 to ${MAX_CONTENT_LENGTH} characters`,
    });
  }
  for (const { path, value } of recipients) {
    if (typeof value === 'string' && isSmsGateEncrypted(value)) {
      ctx.addIssue({
        code: 'custom',
        path,
        message: 'an encrypted number needs encrypted: true; else a valid E.164 phone number (e.g. +14155550100)',
      });
    }
  }
}

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

const sim = z
  .union(SIM_SLOTS.map((slot) => z.literal(slot)) as [z.ZodLiteral<1>, z.ZodLiteral<2>])
  .optional()
  .openapi({
    type: 'integer',
    enum: [...SIM_SLOTS],
    description:
      "SIM slot to send from (1 or 2). A slot the phone has not reported answers 400; accepted while the phone has reported no SIMs. Passed to the phone in its claim (the SMSGate app's `simNumber`).",
  });

const fromGroup = z.number().int().positive().optional().openapi({
  description:
    'Send through this phone group instead of one phone (exactly one of `from` and `from_group`): charged to the group, and sent by one of its online, SIM-verified phones (the one a recipient last heard from, else the shortest queue under its pacing). Moves to another phone of the group if its phone goes offline or reports a failure another phone may not have. With no online phone it waits (until its TTL) on the group phone seen last.',
});

const requireOnline = z.boolean().optional().openapi({
  description: 'With `from_group`: answer 409 NO_ONLINE_PHONE instead of waiting when no phone of the group is online.',
});

const dryRun = z.boolean().optional().openapi({
  description:
    'Answer 200 with what would happen (rendered texts, segments, credits, rejected recipients, balance after) and write nothing.',
});

const priority = z.enum(MESSAGE_PRIORITIES).optional().openapi({
  description:
    "`high` is handed to the phone before every `normal` message (oldest first within each) and ignores send windows; it still obeys the phone's pacing. Default `normal`.",
});

const statusCallbackUrl = webhookUrl.optional().openapi({
  type: 'string',
  format: 'uri',
  description:
    "https URL that receives this message's state events (`message.sent`, `message.delivered`, `message.failed`, `message.expired`, `message.cancelled`), with or without any webhook configured: the same body and Standard Webhooks signature as webhooks, signed with the account's callback secret (`POST /api/v1/webhooks/callback-secret`, shown once), and the same durable retries. The webhooks' address rules apply.",
});

const smartEncoding = z.boolean().optional().openapi({
  description:
    'Replace characters that only look like GSM-7 ones (curly quotes and apostrophes, long dashes, non-breaking and zero-width spaces, the ellipsis, …: the table in docs/api.md) before segments are counted, so that such a text stays GSM-7 (160 characters a segment) rather than UCS-2 (70). The message keeps, and the answer shows, the text as sent, with its `encoding` and `segments` after replacement. Absent: the account’s default (`smart_encoding` in Settings → Sending, off unless set).',
});

const fromPhone = e164.optional().openapi({ description: "A phone of the caller's account (or give `from_group`)." });

/** The fields of a send, each one schema: the REST body below and the MCP tool `send_sms` pick from them. */
export const sendMessageFields = {
  from: fromPhone,
  from_group: fromGroup,
  require_online: requireOnline,
  to: z.union([e164, encryptedValue], { error: 'not a valid E.164 phone number (e.g. +14155550100)' }).openapi({
    description:
      'Phone number in E.164 format; with `encrypted: true`, the number encrypted in the SMSGate app’s format.',
  }),
  content: content.optional().openapi({
    description: `Message text, 1 to ${MAX_CONTENT_LENGTH} characters (with \`encrypted: true\`, the ciphertext, up to ${MAX_ENCRYPTED_LENGTH}); required unless \`data\` is given.`,
  }),
  data: dataSmsBytes.optional().openapi({
    description: `A data (binary) SMS instead of text: its bytes in base64, 1 to ${DATA_SMS_MAX_BYTES} bytes, with \`port\`. Only from a phone paired with the SMSGate app (\`from\`, not \`from_group\`); any other phone answers 400.`,
  }),
  port: dataSmsPort.optional().openapi({ description: 'With `data`: the destination port, 0 to 65535.' }),
  encrypted,
  request_id: z
    .string()
    .min(1)
    .max(MAX_REQUEST_ID_LENGTH)
    .optional()
    .openapi({ description: 'Idempotency key, unique per account: a repeat answers 409 DUPLICATE_REQUEST.' }),
  send_at: sendAt,
  ttl_s: ttl,
  sim,
  priority,
  status_callback_url: statusCallbackUrl,
  smart_encoding: smartEncoding,
  dry_run: dryRun,
};

export const sendMessageBody = z
  .strictObject(sendMessageFields)
  .superRefine((body, ctx) => {
    if ((body.content === undefined) === (body.data === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['content'], message: 'give exactly one of content and data' });
    }
    if ((body.data === undefined) !== (body.port === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['port'], message: 'port goes with data, and data with port' });
    }
    if (body.data !== undefined && body.dry_run) {
      ctx.addIssue({ code: 'custom', path: ['dry_run'], message: 'not available for a data SMS' });
    }
    if (body.data !== undefined && body.smart_encoding) {
      ctx.addIssue({ code: 'custom', path: ['smart_encoding'], message: 'not available for a data SMS' });
    }
    if (body.data !== undefined && body.encrypted) {
      ctx.addIssue({ code: 'custom', path: ['encrypted'], message: 'not available for a data SMS' });
    }
    checkEncryption(body, [{ path: ['to'], value: body.to }], ctx);
  })
  .openapi('SendMessage');

const templateVars = z
  .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/), z.union([z.string().max(MAX_CONTENT_LENGTH), z.number()]))
  .openapi({ example: { name: 'Ada' }, description: 'Values of the `{{name}}` placeholders in `content`.' });

const bulkRecipient = z.union(
  [e164, encryptedValue, z.strictObject({ to: e164, vars: templateVars.optional() }).openapi('BulkRecipient')],
  { error: 'not a valid E.164 phone number (e.g. +14155550100), nor { to, vars }' },
);

export const sendBulkBody = z
  .strictObject({
    from: fromPhone,
    from_group: fromGroup,
    require_online: requireOnline,
    recipients: z
      .array(bulkRecipient)
      .min(1)
      .max(MAX_BULK_RECIPIENTS)
      .optional()
      .openapi({
        description: `1 to ${MAX_BULK_RECIPIENTS} recipients: E.164 numbers, or \`{ to, vars }\` objects whose vars fill \`{{name}}\` placeholders in content. Repeats are sent once. With \`encrypted: true\`: numbers encrypted in the SMSGate app's format, one credit each. Required unless \`contact_tags\` is given.`,
      }),
    contact_tags: z
      .array(contactTag)
      .min(1)
      .max(CONTACT_LIMITS.tags)
      .optional()
      .openapi({
        description: `Also send to every contact carrying any of these tags (GET /api/v1/contacts), after \`recipients\` in the order the contacts were added (\`rejected\`'s \`index\` counts on from \`recipients\`); a contact's name fills \`{{name}}\`. Together with \`recipients\`, at most ${MAX_BULK_RECIPIENTS}: more answers 400 naming \`contact_tags\`, and so do tags no contact carries. Not with \`encrypted: true\`.`,
      }),
    content: content.openapi({
      description: `Message text, 1 to ${MAX_CONTENT_LENGTH} characters; may hold \`{{name}}\` placeholders filled from each recipient's vars. With \`encrypted: true\`: the encrypted text (up to ${MAX_ENCRYPTED_LENGTH} characters), sent to every recipient as it is.`,
    }),
    encrypted,
    send_at: sendAt,
    ttl_s: ttl,
    sim,
    priority,
    status_callback_url: statusCallbackUrl,
    smart_encoding: smartEncoding,
    dry_run: dryRun,
  })
  .superRefine((body, ctx) => {
    if (!body.recipients && !body.contact_tags) {
      ctx.addIssue({ code: 'custom', path: ['recipients'], message: 'required unless contact_tags is given' });
    }
    if (body.contact_tags && body.encrypted) {
      ctx.addIssue({ code: 'custom', path: ['contact_tags'], message: 'not available with encrypted: true' });
    }
    checkEncryption(
      body,
      (body.recipients ?? []).map((value, index) => ({ path: ['recipients', index], value })),
      ctx,
    );
  })
  .openapi('SendBulkMessage');

export const rejectedRecipientSchema = z
  .object({
    index: z.number().int().openapi({ description: 'Position in `recipients` (0 for a single send).' }),
    to: z.string(),
    code: z.enum([
      'VALIDATION_ERROR',
      'RECIPIENT_OPTED_OUT',
      'RECIPIENT_COUNTRY_NOT_ALLOWED',
      'RECIPIENT_QUOTA_REACHED',
      'DUPLICATE_REQUEST',
    ]),
    detail: z.string(),
    field: z.string().optional().openapi({ example: 'recipients.3.vars.name' }),
  })
  .openapi('RejectedRecipient');

export const dryRunSchema = z
  .object({
    dry_run: z.literal(true),
    messages: z.array(
      z.object({
        to: z.string(),
        from: z.string().openapi({ description: 'The phone that would send it.' }),
        content: z.string().openapi({ description: 'The rendered text.' }),
        encoding: z.enum(ENCODINGS),
        segments: z.number().int(),
        credits: z.number().int().openapi({ description: 'Always 1: a message costs one credit whatever its length.' }),
        sim: z.number().int().nullable(),
      }),
    ),
    rejected: z.array(rejectedRecipientSchema),
    groups: z.array(
      z.object({
        group_id: z.number().int(),
        name: z.string(),
        credits: z.number().int().openapi({ description: 'Credits the send would take from this group.' }),
        balance: z.number().int(),
        balance_after: z
          .number()
          .int()
          .openapi({ description: 'Negative when the group cannot pay (the send would answer 402).' }),
      }),
    ),
    sufficient: z.boolean().openapi({ description: 'Whether the groups can pay for every message.' }),
  })
  .openapi('DryRun', { description: 'What the send would do; nothing was written and no credit moved.' });

export const messageIdParams = z.object({ id: z.uuid().openapi({ description: 'Message id.' }) });
export const bulkIdParams = z.object({ id: z.uuid().openapi({ description: 'Bulk message id.' }) });

/** How a search's `q` matches content (lib/messages/list.ts): whole words, or any part of the text. */
export const SEARCH_MATCHES = ['words', 'substring'] as const;
export type SearchMatch = (typeof SEARCH_MATCHES)[number];

export const messageListQuery = pageQuery.extend({
  status: z.enum(MESSAGE_STATUSES).optional(),
  priority: z.enum(MESSAGE_PRIORITIES).optional(),
  q: z.string().trim().min(1).max(100).optional().openapi({
    description:
      'Search, at most 100 characters; combines with the other filters and the cursor. By default (`match=words`) messages holding every word of `q`, any case, whole words only (`pay` does not find `payment`; accents count), in web-search syntax: `"a phrase"` for words in that order, `-word` for messages without it, `or` between alternatives; punctuation is ignored. `q` is matched as a substring of the content instead, any case, when it has no letter or digit, when it is in a script written without spaces between words (Chinese, Japanese, Thai, Lao, Khmer, Burmese), and when it looks like a number (digits, a leading `+`, spaces, dashes, parentheses): a number also finds the messages whose counterpart number (the recipient of an outbound message, the sender of an inbound one) starts with it. Text the retention sweep purged (a hash, or nothing) is not searched.',
  }),
  match: z.enum(SEARCH_MATCHES).default('words').openapi({
    description:
      "How `q` matches the content: `words` (default, described under `q`), or `substring`: the content contains `q` as written, any case, anywhere (`pay` finds `payment`), without search syntax. A fragment common in the account's messages can be slower than words on a large table.",
  }),
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

export const DEVICE_REPORTED_STATUSES = ['sent', 'delivered', 'failed', 'cancelled'] as const;

export const statusReportBody = z
  .strictObject({
    status: z.enum(DEVICE_REPORTED_STATUSES),
    error: z.string().max(500).optional().openapi({ description: 'Why the message failed, as the phone saw it.' }),
    error_code: z.enum(RETRYABLE_ERRORS).optional().openapi({
      description:
        "Android SmsManager's result for a failure that another try may fix. A message sent through a group (`from_group`) then moves to another online phone of the group instead of failing.",
    }),
  })
  .openapi('MessageStatusReport');

/** A received SMS comes from a number, a short code or an alphanumeric sender id. */
export const inboundSender = z
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
  status: z.enum(HISTORY_STATUSES).openapi({
    description: 'A state the message entered, or `rerouted` when a group message moved to another phone.',
  }),
  at: z.string().openapi({ format: 'date-time' }),
  error: z.string().optional().openapi({ description: 'Why it failed; for `rerouted`, why it moved.' }),
  from: z.string().optional().openapi({ description: 'For `rerouted`: the phone it left.' }),
  to: z.string().optional().openapi({ description: 'For `rerouted`: the phone it moved to.' }),
});

/** What automation did about an inbound message, as the message shows it. */
export const automationEntrySchema = z
  .object({
    rule_id: z.uuid().nullable().openapi({ description: 'The rule that acted; null for HELP and webhook replies.' }),
    action: z.enum(AUTOMATION_ACTIONS),
    result: z.enum(['sent', 'skipped']),
    reason: z.enum(AUTOMATION_SKIP_REASONS).optional().openapi({ description: 'Why it was skipped.' }),
    message_id: z.uuid().optional().openapi({ description: 'The automatic message sent.' }),
    webhook_id: z.uuid().optional(),
  })
  .openapi('AutomationEntry');

/** What sent an automatic message, as the message shows it. */
export const messageOriginSchema = z
  .object({
    kind: z.enum(MESSAGE_ORIGIN_KINDS),
    rule_id: z.uuid().nullable(),
    inbound_message_id: z.uuid(),
  })
  .openapi('MessageOrigin', {
    description: 'Set on an automatic message: what sent it, in answer to which inbound message.',
  });

export const messageSchema = z
  .object({
    id: z.uuid(),
    kind: z.enum(MESSAGE_KINDS).openapi({
      description:
        '`message` for a text SMS sent or received; `data` for a binary (data) SMS, its bytes in base64 as `content` and its port as `data_port`; `mms` for an MMS an SMSGate-app phone reported (its text as `content`, the rest in `details`); `sim_check` for the free SMS that checks the SIM of a phone paired with the SMSGate app, texted by the phone itself (loopback) or by another verified phone of the account (its text, which holds the code, is shown only to the sending phone).',
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
    sim: z
      .number()
      .int()
      .nullable()
      .openapi({ description: "The SIM slot it is sent from (null: the phone's default)." }),
    from_group: z.number().int().nullable().openapi({
      description:
        'The group it was sent through (`from_group`), whose phones may take it over; null when sent `from` one phone (it never moves).',
    }),
    priority: z.enum(MESSAGE_PRIORITIES),
    held_reason: z.enum(HELD_REASONS).nullable().openapi({
      description:
        'Why a due `queued` message waits: `hourly_cap` (its phone sent its `hourly_cap` in the last hour) or `daily_cap` (its phone sent its `daily_cap` today, UTC). It goes out when the window opens; null when nothing holds it.',
    }),
    attempts: z
      .number()
      .int()
      .openapi({ description: 'Tries so far; automatic retries raise it up to `max_attempts`.' }),
    send_at: z.string().nullable().openapi({ format: 'date-time' }),
    expires_at: z.string().nullable().openapi({ format: 'date-time' }),
    error: z.string().nullable(),
    origin: messageOriginSchema.nullable(),
    automation: z.array(automationEntrySchema).nullable().openapi({
      description:
        'On an inbound message: what the inbound rules, the HELP responder and webhook replies did about it, in order. Null when nothing was tried.',
    }),
    data_port: z
      .number()
      .int()
      .nullable()
      .openapi({ description: 'A `data` message: the port it goes to or came to; null for every other.' }),
    details: z
      .object({
        event: z.string().optional(),
        subject: z.string().nullable().optional(),
        size: z.number().nullable().optional(),
        content_class: z.string().nullable().optional(),
        transaction_id: z.string().nullable().optional(),
        attachment_count: z.number().int().optional(),
        attachment_types: z.array(z.string()).optional(),
      })
      .nullable()
      .openapi({
        description:
          'An inbound `data` or `mms` message: what the SMSGate app reported (`event` it came by; for an MMS `subject`, `size` in bytes, `content_class`, `transaction_id`, `attachment_count` and `attachment_types`). Attachment bytes are not kept. Null for every other.',
      }),
    encrypted: z.boolean().openapi({
      description:
        "`content` and the counterpart number (`to` of an outbound message, `from` of an inbound one) are encrypted in the SMSGate app's format: the dashboard decrypts them in the browser with the passphrase typed there, which never reaches the server.",
    }),
    content_purged_at: z.string().nullable().openapi({
      format: 'date-time',
      description:
        'When data retention removed the text (RETENTION_MESSAGE_CONTENT_DAYS, or the account’s Settings → Data): `content` is then its SHA-256 in hex (mode `hash`) or empty (mode `delete`), and the counterpart number may be hashed too. The message still counts in statistics and the ledger. Null while the text is kept.',
    }),
    created_at: z.string().openapi({ format: 'date-time' }),
    updated_at: z.string().openapi({ format: 'date-time' }),
    contact: contactRefSchema.nullable().optional().openapi({
      description:
        'The contact saved for the counterpart number (`to` of an outbound message, `from` of an inbound one), or null when it is none. Shown by the messages list, a message read by id, conversations and webhook payloads.',
    }),
    history: z.array(historyEntry).optional().openapi({ description: 'Every state with its time (read by id).' }),
  })
  .openapi('Message');

const estimatedCompletionAt = z.string().nullable().openapi({
  format: 'date-time',
  description:
    'When the last message is expected to be handed to its phone, from the phones’ pacing (`messages_per_minute`, `hourly_cap`, `daily_cap`, `jitter_seconds`), send windows and the messages queued before it; revised on every read. Once nothing is queued, when the last one was handed out (null if none was).',
});
/** The device API's answer to a received SMS: the message, and the one it repeats when it is a duplicate. */
export const receivedAnswerSchema = messageSchema
  .extend({
    duplicate_of: z.uuid().nullable().openapi({
      description:
        'The id of the message this report repeats (same sender, text and phone within `inbound_dedup_seconds`): nothing new was stored, and the message answered is that one. null: recorded (or a retry of the same `device_message_id`).',
    }),
  })
  .openapi('RecordedInboundMessage');

export const bulkCreatedSchema = z
  .object({
    id: z.uuid(),
    count: z.number().int(),
    message_ids: z.array(z.uuid()),
    segments: z.number().int().openapi({ description: 'Segments of the longest message (templates may differ).' }),
    encoding: z.enum(ENCODINGS).openapi({ description: '`UCS-2` when any message needs it.' }),
    rejected: z.array(rejectedRecipientSchema).openapi({
      description:
        'Recipients not sent to and not charged: opted out, missing a template variable, or past every sending phone’s `monthly_recipient_cap` (`RECIPIENT_QUOTA_REACHED`).',
    }),
    phones: z
      .array(z.object({ phone: z.string(), count: z.number().int() }))
      .openapi({ description: 'How many of the recipients each phone takes.' }),
    estimated_completion_at: estimatedCompletionAt,
  })
  .openapi('BulkMessageCreated');

export const bulkSchema = z
  .object({
    id: z.uuid(),
    from: z.string().nullable().openapi({ description: 'The sending phone; null for a bulk sent through a group.' }),
    from_group: z.number().int().nullable(),
    count: z.number().int(),
    created_at: z.string().openapi({ format: 'date-time' }),
    counts: z.object({
      queued: z.number().int(),
      dispatched: z.number().int(),
      sent: z.number().int(),
      delivered: z.number().int(),
      failed: z.number().int(),
      expired: z.number().int(),
      cancelled: z.number().int(),
    }),
    estimated_completion_at: estimatedCompletionAt,
  })
  .openapi('BulkMessage');

export const claimAnswerSchema = z
  .object({
    data: z.array(messageSchema),
    cancel: z.array(z.uuid()).openapi({
      description:
        'Ids of messages this phone holds that were cancelled (`cancelling`): drop each if not sent yet and report `cancelled`, or report `sent` if it already went. Repeated in every answer until reported (at most 100 at a time).',
    }),
  })
  .openapi('ClaimAnswer');

export const bulkCancelledSchema = z
  .object({
    id: z.uuid(),
    cancelled: z.number().int().openapi({ description: 'Queued messages cancelled by this call.' }),
    cancelling: z
      .number()
      .int()
      .openapi({ description: 'Messages a phone holds, now `cancelling`: their phones are told to drop them.' }),
    not_cancellable: z.number().int().openapi({ description: 'Messages already sent or done.' }),
  })
  .openapi('BulkCancelled');

/** A conversation: every message exchanged with one number (the recipient of an outbound message, the sender of an inbound one). */
export const conversationSchema = z
  .object({
    number: z.string().openapi({ example: '+14155550123', description: 'The other party’s number.' }),
    contact: contactRefSchema.nullable().openapi({ description: 'The contact saved for the number, or null.' }),
    message_count: z.number().int().openapi({ description: 'Messages exchanged with the number, both directions.' }),
    last_message: messageSchema.openapi({ description: 'The newest of them.' }),
  })
  .openapi('Conversation');

export const conversationParams = z.object({
  number: queryPhone.openapi({
    type: 'string',
    description: 'The other party’s number, E.164 (`+` may be sent as `%2B`).',
  }),
});
