import { EMAIL_SMS_OVER_LENGTH } from '@/db/schema';
import { MAX_CONTENT_LENGTH } from '@/lib/messages/limits';
import { z } from '@/lib/zod';
import { EMAIL_REPLY_WINDOW_DAYS } from './limits';

export { EMAIL_REPLY_WINDOW_DAYS } from './limits';

/** Recipients (`<number>@<domain>`) one mail may name; one more is refused at RCPT. */
export const MAX_EMAIL_SMS_RECIPIENTS = 50;

/** The longest text a mail becomes: one message's content. */
export const EMAIL_SMS_MAX_LENGTH = MAX_CONTENT_LENGTH;

export const emailSmsSettingsSchema = z
  .object({
    subject_prefix: z.boolean().openapi({
      description: 'Whether the subject opens the text (`Subject` and the body on the next line).',
    }),
    over_length: z.enum(EMAIL_SMS_OVER_LENGTH).openapi({
      description: `What a text past ${EMAIL_SMS_MAX_LENGTH} characters does: \`refuse\` (the mail is refused with 552) or \`truncate\` (cut to the limit).`,
    }),
    forward_replies: z.boolean().openapi({
      description: `Whether an SMS answering an SMS sent by email is forwarded by email to the mail's sender (its envelope sender, MAIL FROM): when that number's latest outbound message, within ${EMAIL_REPLY_WINDOW_DAYS} days, came from a mail, and the sender is the account's email or one of its confirmed forwarding addresses (/api/v1/email-addresses). Off by default.`,
    }),
    max_length: z.number().int().openapi({ description: 'The longest text, in characters.' }),
    max_recipients: z.number().int().openapi({ description: 'Recipients one mail may name.' }),
    enabled: z.boolean().openapi({ description: 'Whether this instance runs the SMTP server (SMTP_PORT).' }),
    domains: z
      .array(z.string())
      .openapi({ description: 'The domains whose addresses become SMS: `14155550123@<domain>`.' }),
  })
  .openapi('EmailSmsSettings');

export type EmailSmsSettings = z.infer<typeof emailSmsSettingsSchema>;

export const emailSmsSettingsBody = z
  .strictObject({
    subject_prefix: z.boolean().optional(),
    over_length: z.enum(EMAIL_SMS_OVER_LENGTH).optional(),
    forward_replies: z.boolean().optional(),
  })
  .openapi('EmailSmsSettingsChange');

export type EmailSmsSettingsChange = z.infer<typeof emailSmsSettingsBody>;
