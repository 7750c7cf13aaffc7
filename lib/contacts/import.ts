import { type SQL, sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import { guessNumberColumn } from '@/lib/csv-columns';
import { toE164 } from '@/lib/phone-number';
import { withTransaction } from '@/lib/transactions';
import { type ContactColumns, contactColumns, parseCsv, tagsOfCell } from './csv';
import { unguardedCell } from './export';
import { CONTACT_LIMITS, type InvalidRow, MAX_REPORTED_INVALID } from './schemas';

/** A valid row of the file: the fields its columns give (a column the file lacks is left as it is). */
type ImportRow = { number: string; name?: string | null; tags?: string[]; notes?: string | null };

type CheckedFile = { rows: ImportRow[]; invalid: InvalidRow[]; invalidCount: number; columns: ContactColumns };

/** Rows written per statement: a batch travels as one JSON parameter. */
const BATCH = 1000;

/**
 * Every record of the file checked, in one pass: its number normalised to E.164 (the bulk's
 * cleaning: spaces, dots, dashes and brackets dropped), its name, tags and notes within their
 * bounds, and a number that an earlier row already had reported as a repeat.
 */
export function checkFile(text: string): CheckedFile {
  const { header, records } = parseCsv(text);
  const columns = contactColumns(header, guessNumberColumn(header));
  const rows: ImportRow[] = [];
  const invalid: InvalidRow[] = [];
  let invalidCount = 0;
  const firstRowOf = new Map<string, number>();
  const refuse = (row: number, number: string, reason: string) => {
    invalidCount++;
    if (invalid.length < MAX_REPORTED_INVALID) invalid.push({ row, ...(number ? { number } : {}), reason });
  };
  for (const { row, cells } of records) {
    const cell = (column: number) => (column >= 0 ? (cells[column] ?? '').trim() : '');
    const written = cell(columns.number).slice(0, 40);
    const cleaned = written.replace(/[\s().-]/g, '');
    const number = toE164(cleaned.startsWith('00') ? `+${cleaned.slice(2)}` : cleaned);
    if (!written) {
      refuse(row, '', 'no number');
      continue;
    }
    if (!number) {
      refuse(row, written, 'not a valid E.164 phone number (e.g. +14155550100)');
      continue;
    }
    const name = unguardedCell(cell(columns.name));
    const notes = unguardedCell(cell(columns.notes));
    const tags = columns.tags >= 0 ? tagsOfCell(cell(columns.tags)) : [];
    if (typeof tags === 'string') {
      refuse(row, written, tags);
      continue;
    }
    const problem = fieldProblem(name, notes) ?? repeated(firstRowOf.get(number));
    if (problem) {
      refuse(row, written, problem);
      continue;
    }
    firstRowOf.set(number, row);
    rows.push({
      number,
      ...(columns.name >= 0 ? { name: name || null } : {}),
      ...(columns.tags >= 0 ? { tags } : {}),
      ...(columns.notes >= 0 ? { notes: notes || null } : {}),
    });
  }
  return { rows, invalid, invalidCount, columns };
}

function fieldProblem(name: string, notes: string): string | null {
  if (name.length > CONTACT_LIMITS.name) return `name longer than ${CONTACT_LIMITS.name} characters`;
  if (notes.length > CONTACT_LIMITS.notes) return `notes longer than ${CONTACT_LIMITS.notes} characters`;
  return null;
}

function repeated(firstRow: number | undefined): string | null {
  return firstRow === undefined ? null : `repeats the number of row ${firstRow}`;
}

function batches<T>(items: T[]): T[][] {
  const out: T[][] = [];
  for (let at = 0; at < items.length; at += BATCH) out.push(items.slice(at, at + BATCH));
  return out;
}

export type ImportPreview = {
  dry_run: true;
  valid: number;
  invalid: InvalidRow[];
  invalid_count: number;
  would_create: number;
  would_update: number;
};

/** What an import of the file would do, writing nothing: one count of existing numbers per batch. */
export async function previewImport(executor: Executor, accountId: string, text: string): Promise<ImportPreview> {
  const file = checkFile(text);
  let existing = 0;
  for (const batch of batches(file.rows)) {
    const [counted] = await queryRows<{ n: number }>(
      executor,
      sql`select count(*)::int as n from contacts c where c.account_id = ${accountId}::uuid
        and c.number in (select jsonb_array_elements_text(${JSON.stringify(batch.map((row) => row.number))}::jsonb))`,
    );
    existing += Number(counted?.n ?? 0);
  }
  return {
    dry_run: true,
    valid: file.rows.length,
    invalid: file.invalid,
    invalid_count: file.invalidCount,
    would_create: file.rows.length - existing,
    would_update: existing,
  };
}

export type ImportResult = { created: number; updated: number; invalid: InvalidRow[]; invalid_count: number };

/** On a number that is a contact already, the file's columns replace its fields; the others stay. */
function replaced(column: number, field: 'name' | 'tags' | 'notes'): SQL {
  const name = sql.identifier(field);
  return column >= 0 ? sql`${name} = excluded.${name}` : sql`${name} = contacts.${name}`;
}

/**
 * Imports the file's valid rows: new numbers become contacts, known ones are updated. One
 * transaction of one upsert per BATCH rows: the import is written whole or not at all. Invalid rows
 * are reported, never fatal.
 */
export async function importContacts(executor: Executor, accountId: string, text: string): Promise<ImportResult> {
  const file = checkFile(text);
  const { columns } = file;
  let created = 0;
  let updated = 0;
  await withTransaction(executor, async (tx) => {
    for (const batch of batches(file.rows)) {
      const [counts] = await queryRows<{ created: number; updated: number }>(
        tx,
        sql`with written as (
          insert into contacts (account_id, number, name, tags, notes)
          select ${accountId}::uuid, r.number, r.name, coalesce(r.tags, '{}'::text[]), r.notes
          from jsonb_to_recordset(${JSON.stringify(batch)}::jsonb) as r(number text, name text, tags text[], notes text)
          on conflict (account_id, number) do update set
            ${replaced(columns.name, 'name')}, ${replaced(columns.tags, 'tags')}, ${replaced(columns.notes, 'notes')},
            updated_at = excluded.updated_at
          returning (xmax = 0) as inserted
        )
        select count(*) filter (where inserted)::int as created, count(*) filter (where not inserted)::int as updated
        from written`,
      );
      created += Number(counts?.created ?? 0);
      updated += Number(counts?.updated ?? 0);
    }
  });
  return { created, updated, invalid: file.invalid, invalid_count: file.invalidCount };
}
