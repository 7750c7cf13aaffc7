import { alertSettingsBody, alertSettingsSchema } from '@/lib/alerts/schemas';
import { accountAlertSettings, updateAlertSettings } from '@/lib/alerts/settings';
import { route } from '@/lib/http/route';

export const GET = route(
  {
    auth: 'account',
    doc: {
      operationId: 'getAlertSettings',
      summary: 'Read the account’s alert thresholds',
      description:
        'What raises an alert (listed by GET /api/v1/alerts, emailed to the account’s address and sent as `alert.raised` / `alert.resolved` webhook events): a phone offline longer than `phone_offline_minutes`, a phone’s battery below `battery_below_percent`, a message queued on an online phone for longer than `queued_older_than_minutes`, a phone paused by Android’s SMS limit (`RESULT_ERROR_LIMIT_EXCEEDED`) for at least `phone_paused_minutes`, a group’s credit balance (the default group’s too) below `group_balance_below`, a webhook failing `webhook_failures_in_a_row` attempts in a row. `null`: that alert is off.',
      tags: ['Alerts'],
      response: { description: 'The thresholds.', schema: alertSettingsSchema },
    },
  },
  async ({ db, principal }) => accountAlertSettings(db, principal.accountId),
);

export const PATCH = route(
  {
    auth: 'account',
    body: alertSettingsBody,
    doc: {
      operationId: 'updateAlertSettings',
      summary: 'Change the account’s alert thresholds',
      description:
        'Only the keys given change; `null` turns that alert off (its open alerts resolve at the next evaluation). A value out of range, not an integer, or an unknown key answers 400 naming the field. The change is recorded in the audit log (`alert_settings.updated`).',
      tags: ['Alerts'],
      response: { description: 'The thresholds.', schema: alertSettingsSchema },
    },
  },
  async ({ db, principal, body }) => updateAlertSettings(db, principal.accountId, body),
);
