import { type AnyColumn, desc, type SQL, sql } from 'drizzle-orm';
import { z } from '@/lib/zod';
import { DomainError } from './errors';

/** `?limit=` (1..100, default 20) and `?cursor=`, shared by every list. */
export const pageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20).openapi({ description: 'Page size, 1 to 100.' }),
  cursor: z.string().max(200).optional().openapi({ description: 'The `next_cursor` of the previous page.' }),
});

export type PageQuery = z.infer<typeof pageQuery>;

export type Page<T> = { data: T[]; next_cursor: string | null };

/** Lists are newest first, keyed by (created_at, id): the cursor is the last row's pair. */
type Cursor = { createdAt: Date; id: string };

export function encodeCursor(cursor: { createdAt: Date; id: string | number }): string {
  return Buffer.from(JSON.stringify([cursor.createdAt.toISOString(), String(cursor.id)])).toString('base64url');
}

// A cursor holds a row's created_at, always within these years. Outside them it was crafted, and
// PostgreSQL would fail on it (its timestamps span 4713 BC to 294276 AD, JavaScript's dates more).
const EARLIEST_CURSOR_TIME = Date.parse('0001-01-01T00:00:00.000Z');
const LATEST_CURSOR_TIME = Date.parse('9999-12-31T23:59:59.999Z');

function isStorableTime(date: Date): boolean {
  const time = date.getTime();
  return time >= EARLIEST_CURSOR_TIME && time <= LATEST_CURSOR_TIME;
}

function invalidCursor(): DomainError {
  return new DomainError('VALIDATION_ERROR', 'The cursor is not one this API gave out.', {
    errors: [{ path: 'cursor', message: 'invalid cursor' }],
  });
}

/** The (created_at, id) pair of a `next_cursor` this API gave out; a 400 naming `cursor` for any other. */
export function decodeCursor(raw: string | undefined): Cursor | undefined {
  if (!raw) return undefined;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
    if (
      Array.isArray(parsed) &&
      parsed.length === 2 &&
      typeof parsed[0] === 'string' &&
      typeof parsed[1] === 'string'
    ) {
      const createdAt = new Date(parsed[0]);
      if (isStorableTime(createdAt)) return { createdAt, id: parsed[1] };
    }
  } catch {
    // fall through to the validation error
  }
  throw invalidCursor();
}

const CURSOR_ID_FORMATS = {
  uuid: /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i,
  bigint: /^[0-9]{1,18}$/,
  integer: /^[0-9]{1,9}$/,
} as const;

/** The columns a list is ordered by, newest first, and the SQL type of its id. */
export type Keyset = { createdAt: AnyColumn; id: AnyColumn; idType: keyof typeof CURSOR_ID_FORMATS };

/** What a list query needs to fetch one page: `.where(and(filters…, after)).orderBy(...orderBy).limit(limit)`. */
export type KeysetPage = {
  /** `(created_at, id) < cursor`, or undefined on the first page. */
  after: SQL | undefined;
  orderBy: SQL[];
  /** One row more than the page holds: the extra row only says there is more (see `toPage`). */
  limit: number;
};

/**
 * The one keyset pagination of every list: newest first on (created_at, id), resumed after the
 * cursor of the previous page. Parameters go as text with explicit casts (postgres-js refuses a
 * Date inside raw SQL), and a cursor whose id is not of the list's id type is a validation error
 * rather than a failed cast.
 */
export function keysetPage(query: PageQuery, keyset: Keyset): KeysetPage {
  const cursor = decodeCursor(query.cursor);
  if (cursor && !CURSOR_ID_FORMATS[keyset.idType].test(cursor.id)) throw invalidCursor();
  const after = cursor
    ? sql`(${keyset.createdAt}, ${keyset.id}) < (${cursor.createdAt.toISOString()}::timestamptz, ${cursor.id}::${sql.raw(keyset.idType)})`
    : undefined;
  return { after, orderBy: [desc(keyset.createdAt), desc(keyset.id)], limit: query.limit + 1 };
}

/** Rows fetched with `limit + 1` become a page: the extra row only says there is more. */
export function toPage<R extends { createdAt: Date; id: string | number }, T>(
  rows: R[],
  limit: number,
  present: (row: R) => T,
): Page<T> {
  const more = rows.length > limit;
  const pageRows = more ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return { data: pageRows.map(present), next_cursor: more && last ? encodeCursor(last) : null };
}
