import Papa from 'papaparse';
import { DomainError } from '@/lib/errors';
import { readCapped } from '@/lib/http/parse';
import { CONTACT_LIMITS, MAX_IMPORT_BYTES, MAX_IMPORT_ROWS, TAG_PATTERN } from './schemas';

const CSV_MEDIA_TYPES = new Set(['text/csv', 'text/plain', 'application/csv', 'application/vnd.ms-excel']);

/**
 * The request's CSV text: 415 unless sent as text/csv (or text/plain), 413 past MAX_IMPORT_BYTES,
 * read chunk by chunk so that a larger body is refused without being held.
 */
export async function readCsvBody(req: Request): Promise<string> {
  const mediaType = (req.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (!CSV_MEDIA_TYPES.has(mediaType)) {
    throw new DomainError('UNSUPPORTED_MEDIA_TYPE', 'Send the file with Content-Type: text/csv.');
  }
  const bytes = await readCapped(req, { bytes: MAX_IMPORT_BYTES, refusal: tooLarge });
  // TextDecoder drops a UTF-8 byte order mark, which spreadsheets put before the header.
  return new TextDecoder('utf-8').decode(bytes);
}

function tooLarge(): DomainError {
  return new DomainError(
    'PAYLOAD_TOO_LARGE',
    `The file is larger than ${MAX_IMPORT_BYTES / 1024 / 1024} MB: split it into several imports.`,
  );
}

/** Which columns of the header hold what; -1 when the file has no such column. */
export type ContactColumns = { number: number; name: number; tags: number; notes: number };

const HEADERS: Record<Exclude<keyof ContactColumns, 'number'>, RegExp> = {
  name: /^(name|full[ _]?name|contact|contact[ _]?name|display[ _]?name)$/i,
  tags: /^(tags?|labels?)$/i,
  notes: /^(notes?|comments?|description)$/i,
};

/**
 * The columns of a contact CSV: the numbers where bulk compose finds them (lib/csv-columns.ts),
 * the others by their header's name.
 */
export function contactColumns(header: readonly string[], numberColumn: number): ContactColumns {
  const find = (pattern: RegExp) =>
    header.findIndex((cell, index) => index !== numberColumn && pattern.test(cell.trim()));
  return { number: numberColumn, name: find(HEADERS.name), tags: find(HEADERS.tags), notes: find(HEADERS.notes) };
}

/**
 * The records of a CSV, header first, each with its position (the header is 1): blank records are
 * left out but keep their place. At most MAX_IMPORT_ROWS data records, else 413.
 */
export function parseCsv(text: string): { header: string[]; records: Array<{ row: number; cells: string[] }> } {
  // Blank lines are read past; the 5 MB body already bounds the work, the preview bounds it again.
  const parsed = Papa.parse<string[]>(text, { delimiter: ',', preview: 2 * MAX_IMPORT_ROWS + 2 });
  const [header = [], ...body] = parsed.data;
  const records: Array<{ row: number; cells: string[] }> = [];
  body.forEach((cells, index) => {
    if (cells.some((cell) => cell.trim() !== '')) records.push({ row: index + 2, cells });
  });
  if (records.length > MAX_IMPORT_ROWS) {
    throw new DomainError('PAYLOAD_TOO_LARGE', `The file has more than ${MAX_IMPORT_ROWS} rows: split it.`);
  }
  return { header, records };
}

/** A cell's tags, separated by `;` or `|` (a comma would split the CSV cell itself). */
export function tagsOfCell(cell: string): string[] | string {
  const tags = [
    ...new Set(
      cell
        .split(/[;|]/)
        .map((tag) => tag.trim().toLowerCase())
        .filter(Boolean),
    ),
  ];
  if (tags.length > CONTACT_LIMITS.tags) return `more than ${CONTACT_LIMITS.tags} tags`;
  const bad = tags.find((tag) => tag.length > CONTACT_LIMITS.tag || !TAG_PATTERN.test(tag));
  if (bad !== undefined) {
    return `tag "${bad.slice(0, CONTACT_LIMITS.tag)}" is not 1 to ${CONTACT_LIMITS.tag} of a-z, 0-9, _ and -`;
  }
  return tags;
}
