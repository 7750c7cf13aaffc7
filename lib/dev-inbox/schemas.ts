import { INBOX_CHANNELS } from '@/db/schema';
import { z } from '@/lib/zod';

/**
 * `?to=` takes a number or an email. An unencoded `+` in a query string arrives as a space,
 * so bare digits are read as an E.164 number; emails are stored lower-cased.
 */
const inboxAddress = z
  .string()
  .trim()
  .min(1)
  .max(320)
  .transform((to) => (/^\d{6,15}$/.test(to) ? `+${to}` : to.toLowerCase()));

export const inboxQuery = z.object({
  to: inboxAddress.optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
});

export const inboxEntrySchema = z
  .object({
    channel: z.enum(INBOX_CHANNELS),
    to: z.string(),
    subject: z.string().nullable(),
    text: z.string(),
    code: z.string().nullable(),
    created_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('DevInboxEntry');
