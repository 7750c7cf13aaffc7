import { type SQL, sql } from 'drizzle-orm';
import { type Database, queryRows, withQueryOrigin } from '@/db';
import { accountByAccountWhenDistributed } from '@/db/distributed';
import { ALERT_KINDS, ALERT_RULES, type AlertKind, type AlertSubjectType, alerts } from '@/db/schema';
import { columnsOf } from '@/lib/raw-rows';
import { ALERT_CONDITIONS, only } from './conditions';
import { notifyAlert } from './notify';
import type { AlertRow } from './present';

type RawAlert = {
  id: string;
  account_id: string;
  kind: AlertKind;
  subject_type: AlertSubjectType;
  subject_id: string;
  subject_name: string;
  values: Record<string, unknown>;
  raised_at: Date | string;
  resolved_at: Date | string | null;
};

function rowOf(raw: RawAlert): AlertRow {
  return {
    id: raw.id,
    kind: raw.kind,
    subjectType: raw.subject_type,
    subjectId: raw.subject_id,
    subjectName: raw.subject_name,
    values: typeof raw.values === 'string' ? JSON.parse(raw.values) : raw.values,
    raisedAt: new Date(raw.raised_at),
    resolvedAt: raw.resolved_at === null ? null : new Date(raw.resolved_at),
  };
}

/**
 * In account order: notifying takes each account's alert-email lock, and transactions that take
 * them in one order never wait for each other.
 */
function byAccount(rows: RawAlert[]): RawAlert[] {
  return [...rows].sort((a, b) => (a.account_id < b.account_id ? -1 : a.account_id > b.account_id ? 1 : 0));
}

/**
 * Opens an alert for every subject in the condition that has none open, and notifies each. The
 * insert meets alerts_open_key: when evaluators on several instances insert the same condition at
 * once, the second waits for the first to commit and then inserts nothing, so only the one whose
 * insert returned the row notifies. Rows go in one order, so two inserts never wait for each other.
 */
async function raiseAlerts(db: Database, kind: AlertKind, now: Date, accountId?: string): Promise<number> {
  return db.transaction(async (tx) => {
    const raised = await queryRows<RawAlert>(
      tx,
      sql`
        insert into alerts (account_id, kind, subject_type, subject_id, subject_name, values, raised_at)
        select c.account_id, ${kind}, ${ALERT_RULES[kind].subject}, c.subject_id, c.subject_name, c.values,
          ${now.toISOString()}::timestamptz
        from (${ALERT_CONDITIONS[kind](now, accountId)}) c
        where not exists (
          select 1 from alerts o
          where o.account_id = c.account_id and o.kind = ${kind} and o.subject_id = c.subject_id
            and o.resolved_at is null
        )
        order by c.account_id, c.subject_id
        on conflict (account_id, kind, subject_id) where resolved_at is null do nothing
        returning ${columnsOf(alerts)}`,
    );
    for (const raw of byAccount(raised)) await notifyAlert(tx, raw.account_id, rowOf(raw), 'raised');
    return raised.length;
  });
}

/**
 * Resolves the open alerts whose condition no longer holds (or that were turned off, or whose
 * subject is gone), and notifies each. Rows another evaluator is resolving are skipped, and the
 * update re-checks `resolved_at is null`, so a resolution is reported exactly once.
 */
async function resolveAlerts(db: Database, kind: AlertKind, now: Date, accountId?: string): Promise<number> {
  return db.transaction(async (tx) => {
    const resolved = await queryRows<RawAlert>(
      tx,
      sql`
        update alerts set resolved_at = ${now.toISOString()}::timestamptz
        where resolved_at is null${only(sql`account_id`, accountId)} and id in (
          select o.id from alerts o
          where o.kind = ${kind} and o.resolved_at is null${only(sql`o.account_id`, accountId)}
            and not exists (
              select 1 from (${ALERT_CONDITIONS[kind](now, accountId)}) c
              where c.account_id = o.account_id and c.subject_id = o.subject_id
            )
          order by o.id
          for update of o skip locked
        )
        returning ${columnsOf(alerts)}`,
    );
    for (const raw of byAccount(resolved)) await notifyAlert(tx, raw.account_id, rowOf(raw), 'resolved');
    return resolved.length;
  });
}

/** The accounts among the rows of `query` (an `account_id` column), read without a lock. */
async function accountsWith(db: Database, query: SQL): Promise<string[]> {
  const rows = await queryRows<{ account_id: string }>(db, sql`select distinct account_id from (${query}) q`);
  return rows.map((row) => row.account_id);
}

/**
 * One evaluation pass over every account: for each kind, resolve the alerts whose condition
 * ended, then raise those whose condition started. Answers how many alerts changed. `now` is the
 * clock the thresholds are measured against. On a Citus database each kind goes account by
 * account (the accounts read first without a lock), each statement with its `account_id` fixed.
 */
export async function evaluateAlerts(db: Database, now: Date = new Date()): Promise<number> {
  return withQueryOrigin('task:alert evaluation', async () => {
    let changed = 0;
    for (const kind of ALERT_KINDS) {
      changed += await accountByAccountWhenDistributed(
        db,
        () => accountsWith(db, sql`select account_id from alerts where kind = ${kind} and resolved_at is null`),
        (accountId) => resolveAlerts(db, kind, now, accountId),
      );
      changed += await accountByAccountWhenDistributed(
        db,
        () => accountsWith(db, sql`select account_id from (${ALERT_CONDITIONS[kind](now)}) c`),
        (accountId) => raiseAlerts(db, kind, now, accountId),
      );
    }
    return changed;
  });
}
