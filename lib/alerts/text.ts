import type { AlertKind } from '@/db/schema/alert-kinds';

/** What each threshold means, said once for the settings schema, the OpenAPI document and the form. */
export const ALERT_SETTING_TEXT = {
  phone_offline: { label: 'Phone offline for more than', unit: 'minutes' },
  battery_low: { label: 'Phone battery below', unit: '%' },
  queue_stalled: { label: 'A message queued on an online phone for more than', unit: 'minutes' },
  phone_paused: { label: 'A phone paused by Android’s SMS limit for at least', unit: 'minutes' },
  group_balance_low: { label: 'A group’s credit balance below', unit: 'credits' },
  webhook_failing: { label: 'A webhook failing', unit: 'attempts in a row' },
} as const satisfies Record<AlertKind, { label: string; unit: string }>;
