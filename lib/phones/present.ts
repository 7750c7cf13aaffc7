import { getTableColumns, sql } from 'drizzle-orm';
import { phones } from '@/db/schema';
import { iso } from '@/lib/wire';
import type { PhoneWire } from './schemas';

/** The columns a phone is read with: its row and whether an activated device sends for it. */
export const phoneColumns = {
  ...getTableColumns(phones),
  // Qualified by hand: drizzle renders a single table's columns unqualified inside subqueries.
  deviceConnected: sql<boolean>`exists (
    select 1 from devices d where d.id = phones.device_id and d.status = 'activated'
  )`.mapWith(Boolean),
};

export type PhoneView = typeof phones.$inferSelect & { deviceConnected: boolean };

export function presentPhone(phone: PhoneView): PhoneWire {
  return {
    id: phone.id,
    phone: phone.phone,
    label: phone.label,
    group_id: phone.groupId,
    device_connected: phone.deviceConnected,
    sim_verification: phone.simVerification,
    status: phone.status,
    battery: phone.battery,
    last_heartbeat_at: iso(phone.lastHeartbeatAt),
    messages_per_minute: phone.messagesPerMinute,
    daily_cap: phone.dailyCap,
    hourly_cap: phone.hourlyCap,
    monthly_recipient_cap: phone.monthlyRecipientCap,
    jitter_seconds: phone.jitterSeconds,
    paused_until: phone.pausedUntil && phone.pausedUntil > new Date() ? phone.pausedUntil.toISOString() : null,
    created_at: iso(phone.createdAt) as string,
  };
}
