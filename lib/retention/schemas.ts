import { RETENTION_MODES } from '@/db/schema/retention-modes';
import { z } from '@/lib/zod';

/** The most days an account may name (100 years): more is "forever", which is `null`. */
export const MAX_RETENTION_DAYS = 36_500;

const mode = z.enum(RETENTION_MODES).openapi({
  description: '`hash`: the text is replaced by its SHA-256 (hex); `delete`: the text is emptied.',
});

const contentPolicy = z.object({
  days: z.number().int().nullable().openapi({ description: 'Days a final message keeps its text; null: forever.' }),
  mode,
  hash_counterpart: z.boolean().openapi({
    description:
      'Whether the counterpart number (recipient of an outbound message, sender of an inbound one) is hashed too.',
  }),
});

export const dataSettingsSchema = z
  .object({
    message_content: contentPolicy.openapi({ description: 'What applies to this account’s messages.' }),
    account: z
      .object({
        content_days: z.number().int().nullable(),
        content_mode: mode.nullable(),
        hash_counterpart: z.boolean().nullable(),
      })
      .openapi({ description: 'The account’s own choices; null follows the instance.' }),
    instance: z
      .object({
        content_days: z.number().int().nullable(),
        content_mode: mode,
        hash_counterpart: z.boolean(),
        webhook_deliveries_days: z.number().int(),
        heartbeats_days: z.number().int(),
        audit_days: z.number().int(),
      })
      .openapi({ description: 'What the instance keeps (its RETENTION_* settings), for every account.' }),
  })
  .openapi('DataSettings');

export type DataSettings = z.infer<typeof dataSettingsSchema>;

export const dataSettingsBody = z
  .strictObject({
    content_days: z
      .number()
      .int()
      .min(1)
      .max(MAX_RETENTION_DAYS)
      .nullable()
      .optional()
      .openapi({ description: 'Days a final message keeps its text; null follows the instance.' }),
    content_mode: mode.nullable().optional(),
    hash_counterpart: z.boolean().nullable().optional(),
  })
  .openapi('UpdateDataSettings');

export type DataSettingsChange = z.infer<typeof dataSettingsBody>;
