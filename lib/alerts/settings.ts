import { eq } from 'drizzle-orm';
import type { Executor } from '@/db';
import { ALERT_KINDS, ALERT_RULES, type AlertKind, accounts } from '@/db/schema';
import { recordAudit } from '@/lib/audit/record';
import { withTransaction } from '@/lib/transactions';
import type { AlertSettings } from './schemas';

/** The accounts field that holds each alert's threshold. */
export const ALERT_THRESHOLD_FIELDS = {
  phone_offline: 'alertPhoneOfflineMinutes',
  battery_low: 'alertBatteryBelowPercent',
  queue_stalled: 'alertQueuedOlderThanMinutes',
  phone_paused: 'alertPhonePausedMinutes',
  group_balance_low: 'alertGroupBalanceBelow',
  webhook_failing: 'alertWebhookFailuresInARow',
} as const satisfies Record<AlertKind, keyof typeof accounts.$inferSelect>;

/** The account's alert thresholds (null: that alert is off). */
export async function accountAlertSettings(executor: Executor, accountId: string): Promise<AlertSettings> {
  const [row] = await executor
    .select(Object.fromEntries(ALERT_KINDS.map((kind) => [kind, accounts[ALERT_THRESHOLD_FIELDS[kind]]])))
    .from(accounts)
    .where(eq(accounts.id, accountId));
  if (!row) throw new Error(`accountAlertSettings: no account ${accountId}`);
  return Object.fromEntries(
    ALERT_KINDS.map((kind) => [ALERT_RULES[kind].setting, (row[kind] as number | null) ?? null]),
  ) as AlertSettings;
}

/** Changes the keys given (null turns an alert off), with an audit entry in the same transaction. */
export async function updateAlertSettings(
  executor: Executor,
  accountId: string,
  body: Partial<AlertSettings>,
): Promise<AlertSettings> {
  const columns: Partial<Record<(typeof ALERT_THRESHOLD_FIELDS)[AlertKind], number | null>> = {};
  const changed: Partial<AlertSettings> = {};
  for (const kind of ALERT_KINDS) {
    const setting = ALERT_RULES[kind].setting;
    const value = body[setting];
    if (value === undefined) continue;
    columns[ALERT_THRESHOLD_FIELDS[kind]] = value;
    changed[setting] = value;
  }
  return withTransaction(executor, async (tx) => {
    if (Object.keys(changed).length > 0) {
      await tx.update(accounts).set(columns).where(eq(accounts.id, accountId));
      await recordAudit(tx, { accountId, action: 'alert_settings.updated', details: { ...changed } });
    }
    return accountAlertSettings(tx, accountId);
  });
}
