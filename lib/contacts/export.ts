import { and, asc, eq, gt } from 'drizzle-orm';
import type { Executor } from '@/db';
import { contacts } from '@/db/schema';

/** Contacts read per statement while the file streams out. */
const PAGE = 1000;

export const EXPORT_HEADER = 'name,number,tags,notes';

// A spreadsheet runs a cell starting with one of these as a formula: text fields get a `'` first,
// which the import takes off again (lib/contacts/import.ts).
const FORMULA_START = /^[=+\-@\t\r]/;

function csvCell(value: string): string {
  return /[",\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

function textCell(value: string | null): string {
  if (!value) return '';
  return csvCell(FORMULA_START.test(value) ? `'${value}` : value);
}

type ExportedRow = { name: string | null; number: string; tags: string[]; notes: string | null };

export function csvLine(row: ExportedRow): string {
  return `${[textCell(row.name), csvCell(row.number), csvCell(row.tags.join(';')), textCell(row.notes)].join(',')}\r\n`;
}

/** A text cell of an import as it was before export guarded it. */
export function unguardedCell(value: string): string {
  return value.startsWith("'") && FORMULA_START.test(value.slice(1)) ? value.slice(1) : value;
}

/**
 * The account's contacts as CSV (name,number,tags,notes; tags joined by `;`), ordered by number,
 * read PAGE at a time by keyset on contacts_account_number_key as the client takes the stream:
 * memory stays bounded whatever the size of the address book.
 */
export function exportContacts(executor: Executor, accountId: string): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  let after: string | null = null;
  let started = false;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (!started) {
        started = true;
        controller.enqueue(encoder.encode(`${EXPORT_HEADER}\r\n`));
      }
      const rows = await executor
        .select({ name: contacts.name, number: contacts.number, tags: contacts.tags, notes: contacts.notes })
        .from(contacts)
        .where(and(eq(contacts.accountId, accountId), after === null ? undefined : gt(contacts.number, after)))
        .orderBy(asc(contacts.number))
        .limit(PAGE);
      if (rows.length > 0) controller.enqueue(encoder.encode(rows.map(csvLine).join('')));
      const last = rows[rows.length - 1];
      if (!last || rows.length < PAGE) controller.close();
      else after = last.number;
    },
  });
}
