import { and, eq, isNotNull, isNull, type SQL } from 'drizzle-orm';
import type { Executor } from '@/db';
import { alerts } from '@/db/schema';
import { keysetPage, type Page, type PageQuery, toPage } from '@/lib/pagination';
import { presentAlert } from './present';
import type { ALERT_STATES, AlertView } from './schemas';

/** The account's alerts, newest raised first, keyset-paginated, optionally only open or resolved ones. */
export async function listAlerts(
  executor: Executor,
  accountId: string,
  query: PageQuery & { state: (typeof ALERT_STATES)[number] },
): Promise<Page<AlertView>> {
  const keyset = keysetPage(query, { createdAt: alerts.raisedAt, id: alerts.id, idType: 'uuid' });
  const conditions: SQL[] = [eq(alerts.accountId, accountId)];
  if (query.state === 'open') conditions.push(isNull(alerts.resolvedAt));
  if (query.state === 'resolved') conditions.push(isNotNull(alerts.resolvedAt));
  const rows = await executor
    .select()
    .from(alerts)
    .where(and(...conditions, keyset.after))
    .orderBy(...keyset.orderBy)
    .limit(keyset.limit);
  return toPage(
    rows.map((row) => ({ ...row, createdAt: row.raisedAt })),
    query.limit,
    presentAlert,
  );
}
