import { PHONE_STATUSES, SIM_VERIFICATIONS } from '@/db/schema';
import { groupId, groupIdInBody } from '@/lib/ids/groups';
import { pageQuery } from '@/lib/pagination';
import { e164 } from '@/lib/phone-number';
import { z } from '@/lib/zod';
import { MAX_DAILY_CAP, MAX_LABEL_LENGTH, MAX_MESSAGES_PER_MINUTE } from './limits';

/** A display name: trimmed, at most 100 characters; empty or null clears it. */
export const label = z
  .string()
  .trim()
  .max(MAX_LABEL_LENGTH)
  .nullable()
  .transform((value) => value || null)
  .openapi({ type: 'string', example: 'Front desk', description: 'Display name, up to 100 characters.' });

export const phoneIdParams = z.object({ id: z.uuid().openapi({ description: 'Phone id.' }) });

export const createPhoneBody = z
  .strictObject({
    phone: e164,
    label: label.optional(),
    group_id: groupIdInBody.optional().openapi({ description: 'Group of the phone; the default group when absent.' }),
  })
  .openapi('CreatePhone');

export const updatePhoneBody = z
  .strictObject({
    label: label.optional(),
    group_id: groupIdInBody.optional(),
    messages_per_minute: z
      .number()
      .int()
      .min(1)
      .max(MAX_MESSAGES_PER_MINUTE)
      .optional()
      .openapi({ description: 'Most messages the phone is handed per minute (1 to 60).' }),
    daily_cap: z
      .number()
      .int()
      .positive()
      .max(MAX_DAILY_CAP)
      .nullable()
      .optional()
      .openapi({ description: 'Most messages the phone sends per day; null for no cap.' }),
  })
  .openapi('UpdatePhone');

export const phoneListQuery = pageQuery.extend({
  group_id: groupId.optional().openapi({ description: 'Only phones of this group.' }),
  status: z.enum(PHONE_STATUSES).optional().openapi({ description: 'Only phones in this status.' }),
});

export const phoneSchema = z
  .object({
    id: z.uuid(),
    phone: z.string().openapi({ example: '+14155550100' }),
    label: z.string().nullable(),
    group_id: z.number().int(),
    device_connected: z.boolean().openapi({ description: 'An activated device sends for this number.' }),
    sim_verification: z.enum(SIM_VERIFICATIONS).openapi({
      description:
        "`verified`: the SIM check passed (a texted code; for the SMSGate app, a code from the operator's sender or another verified phone, or the app's own loopback SMS, which the app could fake: see `verifySimCheck`); `pending`: an app was paired and its check SMS has not arrived yet, so API sends from this phone answer 403 `FORBIDDEN`; `unverified`: a number added by hand.",
    }),
    status: z.enum(PHONE_STATUSES),
    battery: z.number().int().min(0).max(100).nullable(),
    last_heartbeat_at: z.string().nullable().openapi({ format: 'date-time' }),
    messages_per_minute: z.number().int(),
    daily_cap: z.number().int().nullable(),
    created_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('Phone');

export type PhoneWire = z.infer<typeof phoneSchema>;
