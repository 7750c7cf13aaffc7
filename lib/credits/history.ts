import { and, eq, type SQL } from 'drizzle-orm';
import type { Executor } from '@/db';
import { creditLedger, phoneGroups } from '@/db/schema';
import { groupNotFound } from '@/lib/groups/names';
import { keysetPage, type Page, type PageQuery, toPage } from '@/lib/pagination';
import { iso } from '@/lib/wire';
import type { LedgerEntryWire } from './schemas';

type LedgerRow = typeof creditLedger.$inferSelect;

export function presentLedgerEntry(row: LedgerRow): LedgerEntryWire {
  return {
    id: row.id,
    group_id: row.groupId,
    kind: row.kind,
    amount: row.amount,
    balance_after: row.balanceAfter,
    message_id: row.messageId,
    transfer_id: row.transferId,
    note: row.note,
    created_at: iso(row.createdAt) as string,
  };
}

/**
 * The account's credit movements, newest first. A group filter may name a deleted group (its
 * history stays readable); a group the account never had is 404 GROUP_NOT_FOUND.
 */
export async function listLedger(
  executor: Executor,
  accountId: string,
  query: PageQuery & { group_id?: number },
): Promise<Page<LedgerEntryWire>> {
  const keyset = keysetPage(query, { createdAt: creditLedger.createdAt, id: creditLedger.id, idType: 'bigint' });
  const conditions: SQL[] = [eq(creditLedger.accountId, accountId)];
  if (query.group_id !== undefined) {
    await assertGroupKnown(executor, accountId, query.group_id);
    conditions.push(eq(creditLedger.groupId, query.group_id));
  }
  const rows = await executor
    .select()
    .from(creditLedger)
    .where(and(...conditions, keyset.after))
    .orderBy(...keyset.orderBy)
    .limit(keyset.limit);
  return toPage(rows, query.limit, presentLedgerEntry);
}

async function assertGroupKnown(executor: Executor, accountId: string, groupId: number): Promise<void> {
  const [group] = await executor
    .select({ id: phoneGroups.id })
    .from(phoneGroups)
    .where(and(eq(phoneGroups.accountId, accountId), eq(phoneGroups.id, groupId)));
  if (group) return;
  const [movement] = await executor
    .select({ id: creditLedger.id })
    .from(creditLedger)
    .where(and(eq(creditLedger.accountId, accountId), eq(creditLedger.groupId, groupId)))
    .limit(1);
  if (!movement) throw groupNotFound(groupId);
}
