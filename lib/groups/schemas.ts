import { groupId } from '@/lib/ids/groups';
import { pageQuery } from '@/lib/pagination';
import { groupSendingBody, sendWindowSchema } from '@/lib/settings/schemas';
import { z } from '@/lib/zod';

export const MAX_GROUP_NAME_LENGTH = 100;

export const groupName = z
  .string()
  .trim()
  .min(1)
  .max(MAX_GROUP_NAME_LENGTH)
  .openapi({ example: 'Sales', description: 'Unique in the account, case-insensitively, after trimming.' });

const isDefault = z
  .boolean()
  .optional()
  .openapi({ description: 'Only `false` is accepted: the default group exists once and cannot be changed.' });

export const groupIdParams = z.object({ id: groupId });

export const createGroupBody = z.strictObject({ name: groupName, is_default: isDefault }).openapi('CreatePhoneGroup');

export const updateGroupBody = z
  .strictObject({ name: groupName.optional(), is_default: isDefault, sending: groupSendingBody.optional() })
  .openapi('UpdatePhoneGroup');

export const groupListQuery = pageQuery;

export const groupSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    is_default: z.boolean(),
    balance: z.number().int().openapi({ description: 'Credits shared by the group’s phones.' }),
    phone_count: z.number().int(),
    messaging_service_sid: z.string().openapi({
      example: 'MG9f1c2b3a4d5e6f708192a3b4c5d6e7f8',
      description:
        'The group as a Twilio Messaging Service: a `MessagingServiceSid` on the Twilio-compatible API sends through it.',
    }),
    sending: z
      .object({
        send_window: sendWindowSchema.nullable().optional(),
        max_attempts: z.number().int().optional(),
        allowed_countries: z.array(z.string()).nullable().optional(),
      })
      .openapi({ description: 'The account’s sending settings this group overrides (absent keys inherit).' }),
    created_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('PhoneGroup');

export type GroupWire = z.infer<typeof groupSchema>;
