import { type SQL, sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';

/**
 * Whether a number has opted out of an account: the one rule every outbound path applies (the
 * one-statement send and its batch, bulk planning, automation's preview), as an SQL condition.
 */
export function optedOutSql(accountId: SQL, phone: SQL): SQL {
  return sql`exists (select 1 from opt_outs o where o.account_id = ${accountId} and o.phone = ${phone})`;
}

/**
 * The numbers among `numbers` that opted out of the account. The numbers travel as one JSON
 * parameter: a bulk's thousand recipients are one statement of fixed text, not a thousand parameters.
 */
export async function optedOutAmong(executor: Executor, accountId: string, numbers: string[]): Promise<Set<string>> {
  if (numbers.length === 0) return new Set();
  const rows = await queryRows<{ phone: string }>(
    executor,
    sql`select n.phone from (select jsonb_array_elements_text(${JSON.stringify(numbers)}::jsonb) as phone) n
      where ${optedOutSql(sql`${accountId}::uuid`, sql`n.phone`)}`,
  );
  return new Set(rows.map((row) => row.phone));
}

/** Whether `phone` has opted out of the account. */
export async function isOptedOut(executor: Executor, accountId: string, phone: string): Promise<boolean> {
  return (await optedOutAmong(executor, accountId, [phone])).has(phone);
}
