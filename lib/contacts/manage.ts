import { and, arrayContains, eq, ilike, like, or, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { contacts } from '@/db/schema';
import { DomainError, notFound } from '@/lib/errors';
import { optedOutSql } from '@/lib/opt-outs/check';
import { keysetPage, type Page, toPage } from '@/lib/pagination';
import { isUniqueViolation } from '@/lib/transactions';
import { iso } from '@/lib/wire';
import type { ContactInput, ContactListQuery, ContactWire } from './schemas';

type ContactRow = typeof contacts.$inferSelect & { optedOut: boolean };

/** The columns every read of a contact selects: the row, and whether its number opted out. */
const contactColumns = {
  id: contacts.id,
  accountId: contacts.accountId,
  name: contacts.name,
  number: contacts.number,
  tags: contacts.tags,
  notes: contacts.notes,
  createdAt: contacts.createdAt,
  updatedAt: contacts.updatedAt,
  optedOut: sql<boolean>`${optedOutSql(sql`${contacts.accountId}`, sql`${contacts.number}`)}`.as('opted_out'),
};

export function presentContact(row: ContactRow): ContactWire {
  return {
    id: row.id,
    name: row.name,
    number: row.number,
    tags: row.tags,
    notes: row.notes,
    opted_out: Boolean(row.optedOut),
    created_at: iso(row.createdAt) ?? '',
    updated_at: iso(row.updatedAt) ?? '',
  };
}

/** LIKE's own characters in `text`, escaped so that they match themselves. */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** A name containing `search` (any case), or, for something that looks like a number's start, a number starting with it. */
function searchFilter(search: string): SQL {
  const byName = ilike(contacts.name, `%${likeLiteral(search)}%`);
  const digits = search.replace(/[\s().-]/g, '');
  if (!/^\+?\d+$/.test(digits)) return byName;
  return or(byName, like(contacts.number, `${digits.startsWith('+') ? '' : '+'}${digits}%`)) as SQL;
}

/** The account's contacts, newest first, keyset-paginated on (created_at, id). */
export async function listContacts(
  executor: Executor,
  accountId: string,
  query: ContactListQuery,
): Promise<Page<ContactWire>> {
  const keyset = keysetPage(query, { createdAt: contacts.createdAt, id: contacts.id, idType: 'uuid' });
  const rows = await executor
    .select(contactColumns)
    .from(contacts)
    .where(
      and(
        eq(contacts.accountId, accountId),
        query.search ? searchFilter(query.search) : undefined,
        query.tag ? arrayContains(contacts.tags, [query.tag]) : undefined,
        keyset.after,
      ),
    )
    .orderBy(...keyset.orderBy)
    .limit(keyset.limit);
  return toPage(rows, query.limit, presentContact);
}

/** The account's contact, or 404 (another account's contact is as unknown as none). */
export async function ownedContact(executor: Executor, accountId: string, id: string): Promise<ContactRow> {
  const [row] = await executor
    .select(contactColumns)
    .from(contacts)
    .where(and(eq(contacts.accountId, accountId), eq(contacts.id, id)));
  if (!row) throw notFound('Contact');
  return row;
}

export async function getContact(executor: Executor, accountId: string, id: string): Promise<ContactWire> {
  return presentContact(await ownedContact(executor, accountId, id));
}

function duplicateNumber(number: string): DomainError {
  return new DomainError('CONFLICT', `${number} is already a contact of this account.`, {
    errors: [{ path: 'number', message: 'already a contact' }],
  });
}

/** Runs a write that may hit contacts_account_number_key, turning that into 409 CONFLICT naming `number`. */
async function uniqueNumber<T>(number: string, write: () => Promise<T>): Promise<T> {
  try {
    return await write();
  } catch (error) {
    if (isUniqueViolation(error, 'contacts_account_number_key')) throw duplicateNumber(number);
    throw error;
  }
}

export async function createContact(
  executor: Executor,
  accountId: string,
  input: ContactInput & { number: string },
): Promise<ContactWire> {
  const [created] = await executor
    .insert(contacts)
    .values({
      accountId,
      number: input.number,
      name: input.name ?? null,
      tags: input.tags ?? [],
      notes: input.notes ?? null,
    })
    .onConflictDoNothing()
    .returning({ id: contacts.id });
  // The unique index said no: the number is a contact already.
  if (!created) throw duplicateNumber(input.number);
  return getContact(executor, accountId, created.id);
}

/** Changes the fields given; a number another contact has answers 409 CONFLICT naming `number`. */
export async function updateContact(
  executor: Executor,
  accountId: string,
  id: string,
  input: ContactInput,
): Promise<ContactWire> {
  const write = () =>
    executor
      .update(contacts)
      .set({
        ...(input.name !== undefined ? { name: input.name } : {}),
        ...(input.number !== undefined ? { number: input.number } : {}),
        ...(input.tags !== undefined ? { tags: input.tags } : {}),
        ...(input.notes !== undefined ? { notes: input.notes } : {}),
        updatedAt: new Date(),
      })
      .where(and(eq(contacts.accountId, accountId), eq(contacts.id, id)))
      .returning({ id: contacts.id });
  const [updated] = input.number ? await uniqueNumber(input.number, write) : await write();
  if (!updated) throw notFound('Contact');
  return getContact(executor, accountId, updated.id);
}

export async function deleteContact(executor: Executor, accountId: string, id: string): Promise<void> {
  const removed = await executor
    .delete(contacts)
    .where(and(eq(contacts.accountId, accountId), eq(contacts.id, id)))
    .returning({ id: contacts.id });
  if (removed.length === 0) throw notFound('Contact');
}
