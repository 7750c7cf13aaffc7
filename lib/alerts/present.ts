import type { AlertKind, AlertSubjectType } from '@/db/schema';
import type { AlertView } from './schemas';

/** An alert row as the database answers it, through drizzle or raw SQL. */
export type AlertRow = {
  id: string;
  kind: AlertKind;
  subjectType: AlertSubjectType;
  subjectId: string;
  subjectName: string;
  values: Record<string, unknown>;
  raisedAt: Date;
  resolvedAt: Date | null;
};

export function presentAlert(row: AlertRow): AlertView {
  return {
    id: row.id,
    kind: row.kind,
    subject: { type: row.subjectType, id: row.subjectId, name: row.subjectName },
    values: row.values,
    raised_at: row.raisedAt.toISOString(),
    resolved_at: row.resolvedAt ? row.resolvedAt.toISOString() : null,
  };
}

/** One line saying what the alert is about, for emails and the dashboard. */
export function alertTitle(alert: Pick<AlertView, 'kind' | 'subject' | 'values'>): string {
  const name = alert.subject.name;
  const values = alert.values;
  switch (alert.kind) {
    case 'phone_offline':
      return `Phone ${name} is offline (over ${values.threshold_minutes} minutes)`;
    case 'battery_low':
      return `Phone ${name}'s battery is at ${values.battery} %`;
    case 'queue_stalled':
      return `Phone ${name} is online but holds messages queued over ${values.threshold_minutes} minutes`;
    case 'phone_paused':
      return `Phone ${name} is paused until ${values.paused_until}: Android reported its SMS limit exceeded`;
    case 'group_balance_low':
      return `Group ${name} has ${values.balance} credits left`;
    case 'webhook_failing':
      return `Webhook ${name} failed ${values.failures_in_a_row} times in a row`;
  }
}
