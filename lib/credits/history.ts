import { and, eq, gte, lt, type SQL, sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import type { LedgerKind } from '@/db/schema';
import { creditLedger, phoneGroups } from '@/db/schema';
import { groupNotFound } from '@/lib/ids/groups';
import { keysetPage, type Page, type PageQuery, toPage } from '@/lib/pagination';
import { iso } from '@/lib/wire';
import type { BalanceHistoryWire, LedgerEntryWire } from './schemas';

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

export type LedgerQuery = PageQuery & {
  group_id?: number;
  kind?: LedgerKind;
  created_after?: Date;
  created_before?: Date;
};

/**
 * The statement of one page of the account's credit movements, newest first (wrapped: a query
 * builder is a thenable). Apart from listLedger so that the tests can EXPLAIN what the list runs.
 */
export async function ledgerPageQuery(executor: Executor, accountId: string, query: LedgerQuery) {
  const keyset = keysetPage(query, { createdAt: creditLedger.createdAt, id: creditLedger.id, idType: 'bigint' });
  const conditions: SQL[] = [eq(creditLedger.accountId, accountId)];
  if (query.group_id !== undefined) {
    await assertGroupKnown(executor, accountId, query.group_id);
    conditions.push(eq(creditLedger.groupId, query.group_id));
  }
  if (query.kind) conditions.push(eq(creditLedger.kind, query.kind));
  if (query.created_after) conditions.push(gte(creditLedger.createdAt, query.created_after));
  if (query.created_before) conditions.push(lt(creditLedger.createdAt, query.created_before));
  return {
    statement: executor
      .select()
      .from(creditLedger)
      .where(and(...conditions, keyset.after))
      .orderBy(...keyset.orderBy)
      .limit(keyset.limit),
  };
}

/**
 * The account's credit movements, newest first. A group filter may name a deleted group (its
 * history stays readable); a group the account never had is 404 GROUP_NOT_FOUND.
 */
export async function listLedger(
  executor: Executor,
  accountId: string,
  query: LedgerQuery,
): Promise<Page<LedgerEntryWire>> {
  const { statement } = await ledgerPageQuery(executor, accountId, query);
  return toPage(await statement, query.limit, presentLedgerEntry);
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

const DAY_MS = 86_400_000;

/**
 * The closing balance of each of the last `days` UTC days (today: now), of one group or of the
 * account. Worked back from the current balance by subtracting what moved after each day, so only
 * the window's rows are read (credit_ledger_account_created_idx), in one statement and one snapshot.
 */
export async function balanceHistory(
  executor: Executor,
  accountId: string,
  query: { days: number; group_id?: number },
  now: Date = new Date(),
): Promise<BalanceHistoryWire> {
  if (query.group_id !== undefined) await assertGroupKnown(executor, accountId, query.group_id);
  const today = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate()));
  const start = new Date(today.getTime() - (query.days - 1) * DAY_MS);
  const ofGroup = (column: SQL) => (query.group_id === undefined ? sql`` : sql` and ${column} = ${query.group_id}`);
  const rows = await queryRows<{ day: string | null; moved: number | string | null; current: number | string }>(
    executor,
    sql`
      with moves as (
        select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD') as day, sum(amount)::bigint as moved
        from credit_ledger
        where account_id = ${accountId}::uuid and created_at >= ${start.toISOString()}::timestamptz${ofGroup(sql`group_id`)}
        group by 1
      )
      select moves.day, moves.moved, totals.current
      from (
        select coalesce(sum(balance), 0)::bigint as current
        from phone_groups where account_id = ${accountId}::uuid${ofGroup(sql`id`)}
      ) totals
      left join moves on true
    `,
  );
  const moved = new Map<string, number>();
  let current = 0;
  for (const row of rows) {
    current = Number(row.current);
    if (row.day !== null) moved.set(row.day, Number(row.moved));
  }
  // Walk back from today: a day closes at what the next day opened with.
  const days: BalanceHistoryWire['days'] = [];
  let balance = current;
  for (let i = query.days - 1; i >= 0; i--) {
    const date = new Date(start.getTime() + i * DAY_MS).toISOString().slice(0, 10);
    days.push({ date, balance });
    balance -= moved.get(date) ?? 0;
  }
  return { days: days.reverse() };
}
