import { sql } from 'drizzle-orm';
import { type Executor, queryRows } from '@/db';
import { validationError } from '@/lib/errors';

type TaggedRecipient = { to: string; vars?: { name: string } };

/**
 * A bulk's recipients: those it names, then the contacts carrying any of `tags` in the order they
 * were added (contacts_tags_idx), each with its name as `{{name}}`; at most `max` in all, else 400
 * naming `contact_tags` (nothing is cut silently). Tags no contact carries are a 400 too.
 */
export async function withTaggedContacts<R>(
  executor: Executor,
  accountId: string,
  recipients: R[] | undefined,
  tags: string[] | undefined,
  max: number,
): Promise<Array<R | TaggedRecipient>> {
  const named = recipients ?? [];
  if (!tags) return named;
  const room = max - named.length;
  const rows = await queryRows<{ number: string; name: string | null }>(
    executor,
    sql`select c.number, c.name from contacts c
      where c.account_id = ${accountId}::uuid and c.tags && ${`{${tags.join(',')}}`}::text[]
      order by c.created_at, c.id limit ${room + 1}`,
  );
  if (rows.length === 0) throw validationError('contact_tags', 'no contact carries these tags');
  if (rows.length > room) {
    throw validationError(
      'contact_tags',
      `with the recipients named, more than ${max}: a bulk takes at most ${max} recipients`,
    );
  }
  return [
    ...named,
    ...rows.map((row) => (row.name ? { to: row.number, vars: { name: row.name } } : { to: row.number })),
  ];
}
