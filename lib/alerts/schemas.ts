import { ALERT_KINDS, ALERT_RULES, ALERT_SUBJECT_TYPES, type AlertKind } from '@/db/schema';
import { pageQuery } from '@/lib/pagination';
import { z } from '@/lib/zod';
import { ALERT_SETTING_TEXT } from './text';

function threshold(kind: AlertKind) {
  const rule = ALERT_RULES[kind];
  const text = ALERT_SETTING_TEXT[kind];
  return z
    .number()
    .int()
    .min(rule.min)
    .max(rule.max)
    .nullable()
    .openapi({
      description: `${text.label} this many ${text.unit} raises a \`${kind}\` alert (${rule.min} to ${rule.max}; null: off; default ${rule.default ?? 'off'}).`,
      example: rule.default ?? 100,
    });
}

export const alertSettingsSchema = z
  .object({
    phone_offline_minutes: threshold('phone_offline'),
    battery_below_percent: threshold('battery_low'),
    queued_older_than_minutes: threshold('queue_stalled'),
    phone_paused_minutes: threshold('phone_paused'),
    group_balance_below: threshold('group_balance_low'),
    webhook_failures_in_a_row: threshold('webhook_failing'),
  })
  .openapi('AlertSettings');

export type AlertSettings = z.infer<typeof alertSettingsSchema>;

export const alertSettingsBody = z
  .strictObject({
    phone_offline_minutes: threshold('phone_offline').optional(),
    battery_below_percent: threshold('battery_low').optional(),
    queued_older_than_minutes: threshold('queue_stalled').optional(),
    phone_paused_minutes: threshold('phone_paused').optional(),
    group_balance_below: threshold('group_balance_low').optional(),
    webhook_failures_in_a_row: threshold('webhook_failing').optional(),
  })
  .openapi('UpdateAlertSettings');

export const ALERT_STATES = ['open', 'resolved', 'all'] as const;

export const alertQuery = pageQuery.extend({
  state: z
    .enum(ALERT_STATES)
    .default('all')
    .openapi({ description: '`open`: not resolved yet; `resolved`: ended; `all` (default).' }),
});

export const alertSchema = z
  .object({
    id: z.uuid(),
    kind: z.enum(ALERT_KINDS).openapi({
      description:
        '`phone_offline`, `battery_low`, `queue_stalled` and `phone_paused` are about a phone; `group_balance_low` about a group (the default group too); `webhook_failing` about a webhook.',
    }),
    subject: z.object({
      type: z.enum(ALERT_SUBJECT_TYPES),
      id: z
        .string()
        .openapi({ description: 'The phone’s or webhook’s id (a uuid), or the group’s id (an integer, as text).' }),
      name: z.string().openapi({
        description: 'The phone’s number (E.164), the group’s name or the webhook’s URL when the alert was raised.',
        example: '+14155550100',
      }),
    }),
    values: z.record(z.string(), z.unknown()).openapi({
      description:
        'What was measured when the alert was raised, and the threshold it crossed, e.g. `{ "last_heartbeat_at": "…", "threshold_minutes": 15 }`.',
      example: { last_heartbeat_at: '2025-01-15T10:10:00.000Z', threshold_minutes: 15 },
    }),
    raised_at: z.iso.datetime(),
    resolved_at: z.iso.datetime().nullable().openapi({ description: 'When the condition ended; null while open.' }),
  })
  .openapi('Alert');

export type AlertView = z.infer<typeof alertSchema>;
