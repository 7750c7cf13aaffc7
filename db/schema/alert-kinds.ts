// Plain constants (no drizzle), so that the dashboard can name the alerts without the schema.

/** What an alert is about. */
export const ALERT_SUBJECT_TYPES = ['phone', 'group', 'webhook'] as const;
export type AlertSubjectType = (typeof ALERT_SUBJECT_TYPES)[number];

/**
 * Every alert kind: the account setting that holds its threshold (null turns it off), the range
 * that setting may take, its default, and the subject it is raised for.
 */
export const ALERT_RULES = {
  phone_offline: {
    setting: 'phone_offline_minutes',
    subject: 'phone',
    min: 1,
    max: 10_080,
    default: 15,
  },
  battery_low: {
    setting: 'battery_below_percent',
    subject: 'phone',
    min: 1,
    max: 100,
    default: 15,
  },
  queue_stalled: {
    setting: 'queued_older_than_minutes',
    subject: 'phone',
    min: 1,
    max: 10_080,
    default: 10,
  },
  phone_paused: {
    setting: 'phone_paused_minutes',
    subject: 'phone',
    min: 1,
    max: 240,
    default: 1,
  },
  group_balance_low: {
    setting: 'group_balance_below',
    subject: 'group',
    min: 1,
    max: 1_000_000_000,
    default: null,
  },
  webhook_failing: {
    setting: 'webhook_failures_in_a_row',
    subject: 'webhook',
    min: 1,
    max: 1000,
    default: 10,
  },
} as const satisfies Record<
  string,
  { setting: string; subject: AlertSubjectType; min: number; max: number; default: number | null }
>;

export type AlertKind = keyof typeof ALERT_RULES;
export const ALERT_KINDS = Object.keys(ALERT_RULES) as [AlertKind, ...AlertKind[]];
export type AlertSetting = (typeof ALERT_RULES)[AlertKind]['setting'];
