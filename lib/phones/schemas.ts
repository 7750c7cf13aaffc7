import { PHONE_STATUSES, SIM_VERIFICATIONS } from '@/db/schema';
import { groupId, groupIdInBody } from '@/lib/ids/groups';
import { pageQuery } from '@/lib/pagination';
import { e164 } from '@/lib/phone-number';
import { z } from '@/lib/zod';
import {
  MAX_DAILY_CAP,
  MAX_HOURLY_CAP,
  MAX_JITTER_SECONDS,
  MAX_LABEL_LENGTH,
  MAX_MESSAGES_PER_MINUTE,
  MAX_MONTHLY_RECIPIENT_CAP,
} from './limits';

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
      .openapi({ description: 'Most messages the phone sends per day (UTC); null for no cap.' }),
    hourly_cap: z.number().int().positive().max(MAX_HOURLY_CAP).nullable().optional().openapi({
      description:
        'Most messages the phone is handed in any 60 minutes; past it they stay `queued` (`held_reason: hourly_cap`). null for no cap.',
    }),
    monthly_recipient_cap: z.number().int().positive().max(MAX_MONTHLY_RECIPIENT_CAP).nullable().optional().openapi({
      description:
        'Most distinct recipients the phone texts in a calendar month (UTC). A number it texted this month never counts again; a new one past the cap answers 422 `RECIPIENT_QUOTA_REACHED` (a group send picks another phone). null for no cap.',
    }),
    jitter_seconds: z
      .number()
      .int()
      .min(0)
      .max(MAX_JITTER_SECONDS)
      .optional()
      .openapi({
        description: `A random delay of 0 to this many seconds between two of the phone's messages (0 to ${MAX_JITTER_SECONDS}; 0: none).`,
      }),
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
    hourly_cap: z.number().int().nullable(),
    monthly_recipient_cap: z.number().int().nullable(),
    jitter_seconds: z.number().int(),
    paused_until: z.string().nullable().openapi({
      format: 'date-time',
      description:
        'Set while the phone is paused after it reported Android’s `RESULT_ERROR_LIMIT_EXCEEDED` (`LIMIT_PAUSE_SECONDS`, doubled on a repeat within the hour, at most 4 h): it is handed no message before this time. null: not paused.',
    }),
    created_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('Phone');

export type PhoneWire = z.infer<typeof phoneSchema>;

export const simUsageSchema = z
  .object({
    sim: z.number().int().openapi({ description: 'The SIM slot (what a send’s `sim` names).' }),
    this_hour: z.number().int().openapi({ description: 'Messages handed out for this SIM in the last 60 minutes.' }),
    today: z.number().int().openapi({ description: 'Messages handed out for this SIM since midnight UTC.' }),
    recipients_this_month: z
      .number()
      .int()
      .openapi({ description: 'Distinct numbers this SIM texted this calendar month (UTC).' }),
  })
  .openapi('SimUsage');

export const phoneUsageSchema = z
  .object({
    this_minute: z.number().int().openapi({ description: 'Messages handed to the phone in the last 60 seconds.' }),
    this_hour: z.number().int().openapi({ description: 'Messages handed to the phone in the last 60 minutes.' }),
    today: z.number().int().openapi({ description: 'Messages handed to the phone since midnight UTC.' }),
    recipients_this_month: z
      .number()
      .int()
      .openapi({ description: 'Distinct numbers the phone texted this calendar month (UTC).' }),
    month_resets_at: z
      .string()
      .openapi({ format: 'date-time', description: 'When `recipients_this_month` starts again from 0.' }),
    sims: z.array(simUsageSchema).optional().openapi({
      description:
        'Only for a phone whose device reports two or more SIM slots: the usage of each SIM, whose hourly, daily and monthly recipient caps count apart (each SIM has the phone’s caps; a message without `sim` counts for the first slot). The totals above are then the sums over its SIMs.',
    }),
  })
  .openapi('PhoneUsage', { description: 'What counts against each of the phone’s caps now.' });

/** A phone with what counts against its caps: the answer of reading, listing and updating phones. */
export const phoneWithUsageSchema = phoneSchema
  .extend({
    usage: phoneUsageSchema,
    near_cap: z.boolean().openapi({
      description:
        'Its usage has reached 90 % of one of its caps (`hourly_cap`, `daily_cap`, `monthly_recipient_cap`); on a phone with several SIMs, the usage of one of its SIMs.',
    }),
  })
  .openapi('PhoneWithUsage');

export type PhoneUsageWire = z.infer<typeof phoneUsageSchema>;
export type PhoneWithUsageWire = z.infer<typeof phoneWithUsageSchema>;
