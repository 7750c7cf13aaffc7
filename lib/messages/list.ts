import { and, asc, desc, eq, gte, ilike, isNull, like, lt, or, type SQL, sql } from 'drizzle-orm';
import type { Executor } from '@/db';
import { type MessagePriority, type MessageStatus, messageStatusHistory, messages, phones } from '@/db/schema';
import { config } from '@/lib/config';
import { contactsByNumber } from '@/lib/contacts/names';
import { DomainError } from '@/lib/errors';
import { keysetPage, type Page, toPage } from '@/lib/pagination';
import { SQLSTATE, sqlState, withTransaction } from '@/lib/transactions';
import { ownedMessage } from './owned';
import { counterpartOf, type MessageRow, type MessageWire, presentMessage } from './present';
import type { SearchMatch } from './schemas';

export type MessageListQuery = {
  limit: number;
  cursor?: string;
  status?: MessageStatus;
  priority?: MessagePriority;
  q?: string;
  match?: SearchMatch;
  direction?: 'outbound' | 'inbound';
  phone?: string;
  created_after?: Date;
  created_before?: Date;
};

/** LIKE's own characters in `text`, escaped so that they match themselves. */
function likeLiteral(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** A letter or a digit: a query without one holds no word to look up. */
const WORD_CHARACTER = /[\p{L}\p{N}]/u;
/** Scripts written without spaces between words, where a "word" would be a whole run of text. */
const UNSPACED_SCRIPT =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;

/** Whether `q` is looked up as words: asked for, holding a word, in a script that separates them. */
function searchesWords(q: string, match: SearchMatch): boolean {
  return match === 'words' && WORD_CHARACTER.test(q) && !UNSPACED_SCRIPT.test(q);
}

/**
 * Content matching `q` and, for something that looks like the start of a number, a counterpart number
 * starting with it (messages_account_to_idx, messages_account_from_idx). Content not purged matches
 * words of `q` in websearch syntax ("a phrase", -excluded, or) through messages_content_fts_idx, or
 * contains `q`, any case, through messages_content_substring_idx: when `match` says so, when `q`
 * holds no word or is in a script without spaces between words, and when `q` is a number (a code or a
 * number within the text, which the text-search parser would split at its punctuation or keep with its
 * sign).
 */
function searchFilter(q: string, match: SearchMatch): SQL {
  const digits = q.replace(/[\s()-]/g, '');
  const number = /^\+?\d+$/.test(digits);
  const text =
    !number && searchesWords(q, match)
      ? sql`to_tsvector('simple', ${messages.content}) @@ websearch_to_tsquery('simple', ${q})`
      : ilike(messages.content, `%${likeLiteral(q)}%`);
  // A purged message's text is a hash or nothing: not searched (nor in the substring index).
  const content = and(isNull(messages.contentPurgedAt), text) as SQL;
  if (!number) return content;
  const prefix = `${digits.startsWith('+') ? '' : '+'}${likeLiteral(digits)}%`;
  return or(
    content,
    and(eq(messages.direction, 'outbound'), like(messages.to, prefix)),
    and(eq(messages.direction, 'inbound'), like(messages.from, prefix)),
  ) as SQL;
}

/**
 * The statement of one page of the account's messages, newest first, filtered and keyset-paginated
 * on (created_at, id); none when a phone filter names no phone of the account. Kept apart from
 * listMessages so that the tests can EXPLAIN the very statement the list runs.
 */
export async function messagePageQuery(executor: Executor, accountId: string, query: MessageListQuery) {
  const keyset = keysetPage(query, { createdAt: messages.createdAt, id: messages.id, idType: 'uuid' });
  const filters: (SQL | undefined)[] = [eq(messages.accountId, accountId)];
  if (query.status) filters.push(eq(messages.status, query.status));
  if (query.direction) filters.push(eq(messages.direction, query.direction));
  if (query.priority) filters.push(eq(messages.priority, query.priority));
  if (query.q) filters.push(searchFilter(query.q, query.match ?? 'words'));
  if (query.created_after) filters.push(gte(messages.createdAt, query.created_after));
  if (query.created_before) filters.push(lt(messages.createdAt, query.created_before));
  if (query.phone) {
    const [phone] = await executor
      .select({ id: phones.id })
      .from(phones)
      .where(and(eq(phones.accountId, accountId), eq(phones.phone, query.phone)));
    // Another account's number is as unknown as no number: an empty list.
    if (!phone) return { statement: undefined };
    filters.push(eq(messages.phoneId, phone.id));
  }
  // Wrapped: a query builder is a thenable, which an async function would run rather than return.
  return {
    statement: executor
      .select()
      .from(messages)
      .where(and(...filters, keyset.after))
      .orderBy(...keyset.orderBy)
      .limit(keyset.limit),
  };
}

/**
 * The account's messages, newest first, filtered and keyset-paginated on (created_at, id). Planned
 * for its own values every time: statements are prepared (db/client.ts), and after five runs the
 * plan cache may settle on a generic plan, which cannot tell a busy account from a quiet one or a
 * common word from a rare one; for a search that plan intersects the trigram index's matches of
 * every account with the account's rows and sorts them (seconds on a busy account), where the
 * plan for the values walks the account's newest rows.
 */
export async function listMessages(
  executor: Executor,
  accountId: string,
  query: MessageListQuery,
): Promise<Page<MessageWire>> {
  const budgetMs = query.q ? config.searchBudgetMs : undefined;
  const started = performance.now();
  try {
    return await withTransaction(executor, async (tx) => {
      // For these values (above), and without JIT compilation, which PostgreSQL starts once a plan's cost passes
      // jit_above_cost (a rare prefix walked along an account's rows was estimated past it), and which a
      // page of 21 rows never repays.
      await tx.execute(
        sql`select set_config('plan_cache_mode', 'force_custom_plan', true), set_config('jit', 'off', true)`,
      );
      // A search's budget (SEARCH_BUDGET_MS), or less when the request's deadline left less (db/guard.ts).
      if (budgetMs !== undefined) {
        await tx.execute(
          sql`select set_config('statement_timeout', least(${budgetMs}::int,
            nullif(extract(epoch from current_setting('statement_timeout')::interval) * 1000, 0))::int || 'ms', true)`,
        );
      }
      const { statement } = await messagePageQuery(tx, accountId, query);
      if (!statement) return { data: [], next_cursor: null };
      const rows = await statement;
      const contacts = await contactsByNumber(tx, accountId, rows.slice(0, query.limit).map(counterpartOf));
      return toPage(rows, query.limit, (row) => ({
        ...presentMessage(row),
        contact: contacts.get(counterpartOf(row)) ?? null,
      }));
    });
  } catch (error) {
    // Cancelled at its budget (not sooner, by the request's deadline, which answers 503).
    if (
      budgetMs !== undefined &&
      sqlState(error) === SQLSTATE.queryCanceled &&
      performance.now() - started >= budgetMs
    ) {
      throw new DomainError(
        'SEARCH_TOO_BROAD',
        `The search ran past its budget of ${budgetMs} ms. Narrow it: a date range (created_after, created_before), a status, a direction or a phone, or a rarer word; a phrase of common words is the costliest.`,
      );
    }
    throw error;
  }
}

/** One message of the account with every state it has been in. */
export async function getMessage(executor: Executor, accountId: string, messageId: string): Promise<MessageWire> {
  const message = await ownedMessage(executor, accountId, messageId);
  const history = await executor
    .select({
      status: messageStatusHistory.status,
      at: messageStatusHistory.at,
      error: messageStatusHistory.error,
      fromPhone: messageStatusHistory.fromPhone,
      toPhone: messageStatusHistory.toPhone,
    })
    .from(messageStatusHistory)
    .where(and(eq(messageStatusHistory.accountId, accountId), eq(messageStatusHistory.messageId, message.id)))
    .orderBy(asc(messageStatusHistory.id));
  const contacts = await contactsByNumber(executor, accountId, [counterpartOf(message)]);
  return { ...presentMessage(message, history), contact: contacts.get(counterpartOf(message)) ?? null };
}

/** Filters of messageRowsNewestFirst: exact counterpart numbers, a creation period, a keyset position. */
export type MessageRowsQuery = {
  to?: string;
  from?: string;
  createdFrom?: Date;
  createdBefore?: Date;
  /** The last row of the previous page: rows after it in (created_at, id) descending order. */
  after?: { createdAt: Date; id: string };
  limit: number;
};

/**
 * The account's message rows, newest first (created_at, then id), for the wire formats that list
 * messages in their own shape and pages: `to` and `from` match exactly, `createdFrom` is inclusive
 * and `createdBefore` exclusive.
 */
export async function messageRowsNewestFirst(
  executor: Executor,
  accountId: string,
  query: MessageRowsQuery,
): Promise<MessageRow[]> {
  const filters: (SQL | undefined)[] = [eq(messages.accountId, accountId)];
  if (query.to !== undefined) filters.push(eq(messages.to, query.to));
  if (query.from !== undefined) filters.push(eq(messages.from, query.from));
  if (query.createdFrom) filters.push(gte(messages.createdAt, query.createdFrom));
  if (query.createdBefore) filters.push(lt(messages.createdAt, query.createdBefore));
  const after = query.after;
  if (after) {
    filters.push(
      or(
        lt(messages.createdAt, after.createdAt),
        and(eq(messages.createdAt, after.createdAt), lt(messages.id, after.id)),
      ),
    );
  }
  return executor
    .select()
    .from(messages)
    .where(and(...filters))
    .orderBy(desc(messages.createdAt), desc(messages.id))
    .limit(query.limit);
}
