import { is } from 'drizzle-orm';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import { isAccountTable } from '@/db/tenancy';

/**
 * The check over the query log (db/query-log.ts): every statement the product sent that touches an
 * account's table names that table's `account_id` in a condition or among the columns it inserts,
 * so that on a database sharded by account (Citus) each statement reaches one account's shard. The
 * few statements that span every account by design (sweeps, workers claiming across accounts) are
 * allowed by origin or text in lib/ops/query-allowlist.ts, each with its reason; an entry nothing
 * needed fails the check too, so the list stays true.
 *
 * The check is strict in the way a database sharded by account needs: a statement reaches one shard
 * only when each account table it touches has its `account_id` fixed to one value. It reads the
 * text, it does not plan it. A reference to a table counts as filtered when:
 * - its `account_id`, qualified by its name or alias (`"messages"."account_id"`, `m.account_id`) or
 *   unqualified within the same query level (the statement, or the same parenthesised subquery or CTE
 *   body), is compared with `=` to one fixed value: a parameter (`$3`, `$3::uuid`) or a literal,
 *   either side of the `=` (or `in ($3)`, a list of one);
 * - or its qualified `account_id` is equal to the qualified `account_id` of a filtered reference
 *   (`join events e on e.account_id = d.account_id … where d.account_id = $1`, a correlated subquery
 *   `where m.account_id = w.account_id`): colocated tables joined on the distribution column;
 * - or it is an INSERT whose column list has `account_id` (Citus routes each row by its value).
 * `account_id = any($1)`, `in (…)`, `<>` and a join on `account_id` with no fixed value anywhere do not
 * count: each reaches every shard. The check does not see whether the comparison is under an OR, nor
 * that the value compared is the right account's, and it goes by names: a qualified comparison counts
 * for every reference of that name or alias in the statement, on any level.
 */

export type LoggedStatement = { sql: string; origin: string; driver?: string };

/** A statement allowed to span accounts: its origin (exact, or a pattern) and/or its text, and why. */
export type Allowance = {
  origin?: string | RegExp;
  statement?: RegExp;
  /** Only this driver sends it (the entry is not reported unused on a log of the other one). */
  driver?: 'pglite' | 'postgres';
  /** Sent only in some runs (a batch that happens to gather several accounts): not reported unused. */
  sometimes?: boolean;
  reason: string;
};

export type Offence = LoggedStatement & { tables: string[] };

export type QueryLogReport = {
  /** Statements on account tables without `account_id`, and the tables they leave unfiltered. */
  offences: Offence[];
  /** Statements the allow-list let through. */
  allowed: number;
  /** Allow-list entries nothing in the log needed. */
  unused: Allowance[];
  /** Statements read (on account tables or not). */
  statements: number;
};

/** The account tables among drizzle tables: not one of GLOBAL_TABLES, and with an `account_id` column. */
export function accountTablesOf(exports: Record<string, unknown>): Set<string> {
  const tables = new Set<string>();
  for (const value of Object.values(exports)) {
    if (!is(value, PgTable)) continue;
    const config = getTableConfig(value);
    if (isAccountTable(config.name) && config.columns.some((column) => column.name === 'account_id')) {
      tables.add(config.name);
    }
  }
  return tables;
}

const IDENT = `(?:"((?:[^"]|"")+)"|([a-z_][a-z0-9_$]*))`;
const NOT_ALIAS = new Set(
  (
    'where on set left right inner outer full cross join using values select group order limit offset for ' +
    'returning union natural lateral default having window except intersect as and or when then end fetch ' +
    'with tablesample overriding do conflict into from update delete insert'
  ).split(' '),
);

type Reference = { table: string; alias?: string; at: number; columns?: string[] };

/**
 * The statement with string literals' contents and comments blanked (a literal keeps its quotes, so a
 * comparison with one is still seen), lower-cased: what the patterns read.
 */
function cleaned(statement: string): string {
  return statement
    .replace(/'(?:[^']|'')*'/g, (literal) => `'${' '.repeat(literal.length - 2)}'`)
    .replace(/--[^\n]*/g, (comment) => ' '.repeat(comment.length))
    .replace(/\/\*[\s\S]*?\*\//g, (comment) => ' '.repeat(comment.length))
    .toLowerCase();
}

function identOf(match: RegExpExecArray, index: number): string | undefined {
  const quoted = match[index];
  return quoted !== undefined ? quoted.replace(/""/g, '"') : match[index + 1];
}

/** Every table a statement reads or writes: after FROM, JOIN, UPDATE, INTO, USING (schema-qualified or not). */
export function tableReferences(statement: string): Reference[] {
  const text = cleaned(statement);
  const pattern = new RegExp(
    String.raw`\b(from|join|update|into|using)\s+(?:only\s+)?${IDENT}(?:\s*\.\s*${IDENT})?(\s*\()?(?:\s+(?:as\s+)?${IDENT})?`,
    'g',
  );
  const references: Reference[] = [];
  for (let match = pattern.exec(text); match; match = pattern.exec(text)) {
    const keyword = match[1] as string;
    const first = identOf(match, 2) as string;
    const second = identOf(match, 4);
    const table = second ?? first;
    const paren = match[6];
    // `from unnest(…)`: a function, not a table; `join lateral (…)`: a subquery. After INTO, the columns.
    if (paren !== undefined && keyword !== 'into') continue;
    if (table === 'lateral') continue;
    const aliasWord = paren === undefined ? identOf(match, 7) : undefined;
    const alias = aliasWord && !NOT_ALIAS.has(aliasWord) ? aliasWord : undefined;
    const reference: Reference = { table, at: match.index, ...(alias ? { alias } : {}) };
    // `insert into t as x (…)`: the columns after the alias.
    const aliasColumns =
      keyword === 'into' && paren === undefined ? /^\s*\(/.exec(text.slice(match.index + match[0].length)) : null;
    if (aliasColumns) {
      const open = match.index + match[0].length + aliasColumns[0].length - 1;
      const close = text.indexOf(')', open);
      reference.columns = text
        .slice(open + 1, close < 0 ? undefined : close)
        .split(',')
        .map((column) => column.trim().replace(/^"|"$/g, ''));
    }
    if (keyword === 'into' && paren !== undefined) {
      const open = match.index + match[0].length - 1;
      const close = text.indexOf(')', open);
      reference.columns = text
        .slice(open + 1, close < 0 ? undefined : close)
        .split(',')
        .map((column) => column.trim().replace(/^"|"$/g, ''));
    }
    references.push(reference);
  }
  return references;
}

/** The start of the innermost subquery (a parenthesis opening SELECT or WITH) around each position; -1 for the statement itself. */
function levels(text: string): Int32Array {
  const level = new Int32Array(text.length + 1).fill(-1);
  const stack: number[] = [];
  let current = -1;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '(') {
      stack.push(current);
      if (/^\(\s*(select|with)\b/.test(text.slice(i, i + 16))) current = i;
    } else if (char === ')') {
      current = stack.pop() ?? -1;
    }
    level[i] = current;
  }
  level[text.length] = current;
  return level;
}

/** One fixed value, as the other side of `=`: a parameter or a literal, with casts and parentheses. */
const CAST = String.raw`(?:\s*::\s*[a-z_][a-z0-9_ ]*?(?=[\s),;]|$))*`;
const FIXED_VALUE = String.raw`\(*\s*(?:\$\d+|'[^']*'|-?\d+)${CAST}\s*\)*`;
const FIXED_AFTER = new RegExp(
  String.raw`^\s*(?:=\s*${FIXED_VALUE}|in\s*\(\s*${FIXED_VALUE}\s*\))(?!\s*(?:\[|::\s*[a-z_]+\s*\[|\|\||[-+*/,]))`,
);
const FIXED_BEFORE = new RegExp(String.raw`(?<![=<>!])(?:\$\d+|'[^']*'|-?\d+)${CAST}\s*\)*\s*=\s*$`);
const ACCOUNT_ID = String.raw`(?:"account_id"|\baccount_id\b)`;
const JOINED = new RegExp(String.raw`${IDENT}\s*\.\s*${ACCOUNT_ID}\s*=\s*${IDENT}\s*\.\s*${ACCOUNT_ID}`, 'g');

/**
 * The account tables `statement` touches without `account_id` fixed to one value for them (or
 * inserted), so that on a database sharded by account the statement would reach more than one shard.
 */
export function unfilteredTables(statement: string, accountTables: ReadonlySet<string>): string[] {
  const all = tableReferences(statement);
  const references = all.filter((reference) => accountTables.has(reference.table));
  if (references.length === 0) return [];
  const text = cleaned(statement);
  const level = levels(text);
  const compared = new RegExp(String.raw`(?:${IDENT}\s*\.\s*)?${ACCOUNT_ID}`, 'g');
  const fixed = new Set<string>();
  const fixedAt = new Set<number>();
  for (let match = compared.exec(text); match; match = compared.exec(text)) {
    const before = text.slice(Math.max(0, match.index - 48), match.index);
    const after = text.slice(match.index + match[0].length, match.index + match[0].length + 64);
    if (!FIXED_AFTER.test(after) && !FIXED_BEFORE.test(before)) continue;
    const qualifier = identOf(match, 1);
    if (qualifier) fixed.add(qualifier);
    else fixedAt.add(level[match.index] as number);
  }
  const nameOf = (reference: Reference) => reference.alias ?? reference.table;
  const atFixedLevel = (reference: Reference) => fixedAt.has(level[reference.at] as number);
  const fixedRefs = new Set(all.filter(atFixedLevel));
  // A name stands for a level's fixed reference only when no other reference goes by it.
  for (const reference of fixedRefs) {
    if (all.every((other) => other === reference || nameOf(other) !== nameOf(reference))) fixed.add(nameOf(reference));
  }
  // Joins on account_id carry a fixed value from one side to the other.
  const joins: [string, string][] = [];
  for (let match = JOINED.exec(text); match; match = JOINED.exec(text)) {
    joins.push([identOf(match, 1) as string, identOf(match, 3) as string]);
  }
  for (let changed = true; changed; ) {
    changed = false;
    for (const [a, b] of joins) {
      if (fixed.has(a) !== fixed.has(b)) {
        fixed.add(a);
        fixed.add(b);
        changed = true;
      }
    }
  }
  const unfiltered = references.filter((reference) => {
    if (reference.columns?.includes('account_id')) return false;
    if (fixedRefs.has(reference)) return false;
    return !fixed.has(nameOf(reference));
  });
  return [...new Set(unfiltered.map((reference) => reference.table))];
}

function originMatches(pattern: string | RegExp, origin: string): boolean {
  return typeof pattern === 'string' ? pattern === origin : pattern.test(origin);
}

function allows(allowance: Allowance, statement: LoggedStatement): boolean {
  if (allowance.driver && statement.driver && allowance.driver !== statement.driver) return false;
  if (allowance.origin && !originMatches(allowance.origin, statement.origin)) return false;
  if (allowance.statement && !allowance.statement.test(statement.sql)) return false;
  return Boolean(allowance.origin || allowance.statement);
}

/** Checks logged statements against the account tables and the allow-list. */
export function checkQueryLog(
  statements: readonly LoggedStatement[],
  accountTables: ReadonlySet<string>,
  allowances: readonly Allowance[],
): QueryLogReport {
  const used = new Set<Allowance>();
  const offences: Offence[] = [];
  let allowed = 0;
  for (const statement of statements) {
    const tables = unfilteredTables(statement.sql, accountTables);
    if (tables.length === 0) continue;
    const allowance = allowances.find((candidate) => allows(candidate, statement));
    if (allowance) {
      used.add(allowance);
      allowed++;
    } else {
      offences.push({ ...statement, tables });
    }
  }
  const drivers = new Set(statements.map((statement) => statement.driver));
  const unused = allowances.filter(
    (allowance) => !used.has(allowance) && !allowance.sometimes && (!allowance.driver || drivers.has(allowance.driver)),
  );
  return { offences, allowed, unused, statements: statements.length };
}
