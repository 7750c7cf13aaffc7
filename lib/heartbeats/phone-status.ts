import { type SQL, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import type { phones } from '@/db/schema';
import { emitEvent } from '@/lib/events/emit';
import { iso } from '@/lib/wire';

type PhoneRow = typeof phones.$inferSelect;

/**
 * Emits `phone.online` / `phone.offline` for a phone whose status has just changed. Callers get
 * the row from an UPDATE guarded by the old status, so each transition is reported once.
 */
export async function emitPhoneStatusChange(tx: Executor, phone: PhoneRow): Promise<void> {
  if (phone.status === 'unknown') return;
  await emitEvent(tx, {
    accountId: phone.accountId,
    type: phone.status === 'online' ? 'phone.online' : 'phone.offline',
    phone: phone.phone,
    data: {
      phone_id: phone.id,
      phone: phone.phone,
      status: phone.status,
      battery: phone.battery,
      last_heartbeat_at: iso(phone.lastHeartbeatAt),
    },
  });
}

/**
 * Whether the account has an SMSGate-format `system:ping` webhook, the only receiver of
 * `phone.ping`: as an SQL expression, folded into the heartbeat's own statement.
 */
export function pingWantedSql(accountId: string | SQL): SQL {
  return sql`exists (
    select 1 from webhooks w
    where w.account_id = (${accountId})::uuid and w.kind = 'smsgate' and w.enabled and 'phone.ping' = any(w.events)
  )`;
}

/** A heartbeat as `phone.ping` (recorded only when pingWantedSql says someone receives it). */
export async function emitPing(tx: Executor, phone: PhoneRow): Promise<void> {
  await emitEvent(tx, {
    accountId: phone.accountId,
    type: 'phone.ping',
    phone: phone.phone,
    data: {
      phone_id: phone.id,
      phone: phone.phone,
      status: phone.status,
      battery: phone.battery,
      last_heartbeat_at: iso(phone.lastHeartbeatAt),
    },
  });
}
