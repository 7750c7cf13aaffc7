import { type SQL, sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import type { ContactRef } from './schemas';

/**
 * The contacts saved for `numbers`, by number: one statement for a whole page of messages or
 * conversations (contacts_account_number_key), the numbers travelling as one JSON parameter.
 */
export async function contactsByNumber(
  executor: Executor,
  accountId: string,
  numbers: readonly string[],
): Promise<Map<string, ContactRef>> {
  const distinct = [...new Set(numbers)];
  if (distinct.length === 0) return new Map();
  const rows = await queryRows<{ id: string; name: string | null; number: string }>(
    executor,
    sql`select c.id, c.name, c.number from contacts c
      where c.account_id = ${accountId}::uuid
        and c.number in (select jsonb_array_elements_text(${JSON.stringify(distinct)}::jsonb))`,
  );
  return new Map(rows.map((row) => [row.number, { id: row.id, name: row.name }]));
}

/** The counterpart's contact as a JSON value (or SQL null), for a statement that writes it (an event's payload). */
export function contactJsonSql(accountId: SQL, number: SQL): SQL {
  return sql`(select jsonb_build_object('id', c.id, 'name', c.name) from contacts c
    where c.account_id = ${accountId} and c.number = ${number})`;
}
