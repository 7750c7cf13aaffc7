import { and, eq, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { type phones, webhooks } from '@/db/schema';
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
 * A heartbeat as `phone.ping`, only for an account with an SMSGate-format `system:ping` webhook
 * (the only receiver of it): every other heartbeat costs one indexed lookup and writes nothing.
 */
export async function emitPingIfWanted(tx: Executor, phone: PhoneRow): Promise<void> {
  const [wanted] = await tx
    .select({ id: webhooks.id })
    .from(webhooks)
    .where(
      and(
        eq(webhooks.accountId, phone.accountId),
        eq(webhooks.kind, 'smsgate'),
        eq(webhooks.enabled, true),
        sql`'phone.ping' = any(${webhooks.events})`,
      ),
    )
    .limit(1);
  if (!wanted) return;
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
