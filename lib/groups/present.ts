import { getTableColumns, sql } from 'drizzle-orm';
import { phoneGroups } from '@/db/schema';
import { messagingServiceSidOf } from '@/lib/ids/twilio';
import { iso } from '@/lib/wire';
import type { GroupWire } from './schemas';

/** The columns a group is read with: its row and how many phones it has. */
export const groupColumns = {
  ...getTableColumns(phoneGroups),
  // Qualified by hand: drizzle renders a single table's columns unqualified, and a bare "id"
  // would bind to the subquery's own table.
  phoneCount:
    sql<number>`(select count(*) from phones p where p.account_id = phone_groups.account_id and p.group_id = phone_groups.id)`.mapWith(
      Number,
    ),
};

export type GroupView = typeof phoneGroups.$inferSelect & { phoneCount: number };

export function presentGroup(group: GroupView): GroupWire {
  return {
    id: group.id,
    name: group.name,
    is_default: group.isDefault,
    balance: group.balance,
    phone_count: group.phoneCount,
    messaging_service_sid: messagingServiceSidOf(group.id),
    // Written only through groupSendingBody (lib/settings/schemas.ts).
    sending: group.sendingOverrides as GroupWire['sending'],
    created_at: iso(group.createdAt) as string,
  };
}
