import { type SQL, sql } from 'drizzle-orm';
import type { AlertKind } from '@/db/schema';

/**
 * Each alert kind's condition, as one query over every account that has the alert on: a row per
 * subject in the condition now, with `account_id`, `subject_id`, `subject_name` and `values`.
 * Raising inserts these rows; resolving closes the open alerts that are no longer among them.
 */

/** A timestamp as RFC 3339 UTC text, as the wire shows every time. */
function iso(column: SQL): SQL {
  return sql`to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
}

function at(now: Date): SQL {
  return sql`${now.toISOString()}::timestamptz`;
}

/** Narrows a condition to one account (a Citus database evaluates account by account), or not. */
export function only(accountIdColumn: SQL, accountId: string | undefined): SQL {
  return accountId ? sql` and ${accountIdColumn} = ${accountId}::uuid` : sql``;
}

export const ALERT_CONDITIONS: Record<AlertKind, (now: Date, accountId?: string) => SQL> = {
  // Not online, with a last heartbeat longer ago than the threshold (a phone never heard from is not watched).
  phone_offline: (now, accountId) => sql`
    select p.account_id, p.id::text as subject_id, p.phone as subject_name,
      jsonb_build_object(
        'status', p.status,
        'last_heartbeat_at', ${iso(sql`p.last_heartbeat_at`)},
        'threshold_minutes', a.alert_phone_offline_minutes
      ) as values
    from phones p join accounts a on a.id = p.account_id
    where a.alert_phone_offline_minutes is not null
      and p.status <> 'online'
      and p.last_heartbeat_at < ${at(now)} - make_interval(mins => a.alert_phone_offline_minutes)${only(sql`p.account_id`, accountId)}`,
  // The battery the phone last reported.
  battery_low: (_now, accountId) => sql`
    select p.account_id, p.id::text as subject_id, p.phone as subject_name,
      jsonb_build_object('battery', p.battery, 'threshold_percent', a.alert_battery_below_percent) as values
    from phones p join accounts a on a.id = p.account_id
    where a.alert_battery_below_percent is not null
      and p.battery < a.alert_battery_below_percent${only(sql`p.account_id`, accountId)}`,
  // An online phone holding a message due longer ago than the threshold: it is not taking its queue.
  queue_stalled: (now, accountId) => sql`
    select p.account_id, p.id::text as subject_id, p.phone as subject_name,
      jsonb_build_object(
        'queued', count(*)::int,
        'oldest_send_at', ${iso(sql`min(m.send_at)`)},
        'threshold_minutes', a.alert_queued_older_than_minutes
      ) as values
    from phones p
      join accounts a on a.id = p.account_id
      join messages m on m.account_id = p.account_id and m.phone_id = p.id and m.status = 'queued'
        and m.send_at < ${at(now)} - make_interval(mins => a.alert_queued_older_than_minutes)
    where a.alert_queued_older_than_minutes is not null
      and p.status = 'online'${only(sql`p.account_id`, accountId)}
    group by p.account_id, p.id, p.phone, a.alert_queued_older_than_minutes`,
  // Paused after Android's RESULT_ERROR_LIMIT_EXCEEDED (lib/phones/pause.ts), for a pause at least the
  // threshold long: raised once per pause, resolved when it ends.
  phone_paused: (now, accountId) => sql`
    select p.account_id, p.id::text as subject_id, p.phone as subject_name,
      jsonb_build_object(
        'paused_until', ${iso(sql`p.paused_until`)},
        'pause_seconds', p.pause_seconds,
        'threshold_minutes', a.alert_phone_paused_minutes
      ) as values
    from phones p join accounts a on a.id = p.account_id
    where a.alert_phone_paused_minutes is not null
      and p.paused_until > ${at(now)}
      and p.pause_seconds >= a.alert_phone_paused_minutes * 60${only(sql`p.account_id`, accountId)}`,
  // Every group, the default one too.
  group_balance_low: (_now, accountId) => sql`
    select g.account_id, g.id::text as subject_id, g.name as subject_name,
      jsonb_build_object('balance', g.balance, 'threshold', a.alert_group_balance_below) as values
    from phone_groups g join accounts a on a.id = g.account_id
    where a.alert_group_balance_below is not null
      and g.balance < a.alert_group_balance_below${only(sql`g.account_id`, accountId)}`,
  // Failed attempts since the webhook's last success (a success clears failing_since).
  webhook_failing: (_now, accountId) => sql`
    select w.account_id, w.id::text as subject_id, w.url as subject_name,
      jsonb_build_object(
        'failures_in_a_row', f.failures,
        'failing_since', ${iso(sql`w.failing_since`)},
        'enabled', w.enabled,
        'threshold', a.alert_webhook_failures_in_a_row
      ) as values
    from webhooks w
      join accounts a on a.id = w.account_id
      cross join lateral (
        select count(*)::int as failures
        from webhook_deliveries d join webhook_attempts t on t.account_id = d.account_id and t.delivery_id = d.id
        where d.account_id = w.account_id and d.webhook_id = w.id
          and t.attempted_at >= w.failing_since
          and (t.status_code is null or t.status_code not between 200 and 299)
      ) f
    where a.alert_webhook_failures_in_a_row is not null
      and w.failing_since is not null
      and f.failures >= a.alert_webhook_failures_in_a_row${only(sql`w.account_id`, accountId)}`,
};
