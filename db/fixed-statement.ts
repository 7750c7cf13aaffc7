import { fillPlaceholders, is, Param, Placeholder, SQL, StringChunk, sql } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';

// The dialect both drivers' handles use (db/client.ts: no casing option), for the one build.
const dialect = new PgDialect();

type Compiled = { texts: string[]; params: unknown[] };

/**
 * A statement whose text is the same on every call: built once, by `build` with a placeholder for
 * each of `names`, and then only given its values. drizzle would otherwise walk every fragment of
 * a large statement on each call, which on the send's hot path costs more than PostgreSQL's
 * execution of it. The statement still goes through drizzle (its logger, the query log), whose
 * work on the finished text is one chunk per parameter; the driver prepares the text once per
 * connection, as before. `build` runs once, so it reads nothing but its slots: a setting or the
 * clock it needs is one of `names`, given on each call.
 */
export function fixedStatement<K extends string>(
  names: readonly K[],
  build: (slots: Record<K, SQL>) => SQL,
): (values: Record<K, unknown>) => SQL {
  let compiled: Compiled | undefined;
  return (values) => {
    compiled ??= compile(names, build);
    const { texts, params } = compiled;
    const filled = fillPlaceholders(params, values);
    const chunks: unknown[] = [new StringChunk(texts[0] ?? '')];
    for (let index = 0; index < filled.length; index++) {
      chunks.push(new Param(filled[index]), new StringChunk(texts[index + 1] ?? ''));
    }
    return new SQL(chunks as SQL['queryChunks']);
  };
}

function compile<K extends string>(names: readonly K[], build: (slots: Record<K, SQL>) => SQL): Compiled {
  const slots = Object.fromEntries(names.map((name) => [name, sql`${sql.placeholder(name)}`])) as Record<K, SQL>;
  const query = dialect.sqlToQuery(build(slots));
  // The text between the parameters: `$1`, `$2`, … in that order, each once (a statement whose
  // literal text holds a `$<digits>` of its own cannot be split so, and is refused here).
  const texts = query.sql.split(/\$\d+\b/);
  const numbers = [...query.sql.matchAll(/\$(\d+)\b/g)].map((match) => Number(match[1]));
  if (numbers.length !== query.params.length || numbers.some((number, index) => number !== index + 1)) {
    throw new Error('fixedStatement: the statement text holds a `$<digits>` that is not one of its parameters');
  }
  for (const name of names) {
    if (!query.params.some((param) => is(param, Placeholder) && param.name === name)) {
      throw new Error(`fixedStatement: the statement does not use its value "${name}"`);
    }
  }
  return { texts, params: query.params };
}
