import { type SQL, sql } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import { type Executor, queryRows } from './client';

/**
 * Whether the database is a Citus coordinator (the extension is there): its account tables are then
 * distributed by `account_id` (`npm run ops -- distribute`), and a statement reaches one shard only
 * when it fixes `account_id` to one value. The batches that gather several accounts' work in one
 * statement on a single PostgreSQL (heartbeats, claim probes) run one statement per account there.
 * Asked once per database handle.
 */
const known = new WeakMap<Executor, Promise<boolean>>();

export function isDistributed(db: Executor): Promise<boolean> {
  let answer = known.get(db);
  if (!answer) {
    answer = queryRows<{ citus: boolean }>(
      db,
      sql`select exists (select 1 from pg_extension where extname = 'citus') as citus`,
    ).then(
      ([row]) => row?.citus === true,
      () => false,
    );
    known.set(db, answer);
  }
  return answer;
}

/** `items` in groups of one account each, in first-seen order, with each item's index in `items`. */
export function groupByAccount<I>(
  items: readonly I[],
  accountOf: (item: I) => string,
): { indexes: number[]; items: I[] }[] {
  const groups = new Map<string, { indexes: number[]; items: I[] }>();
  items.forEach((item, index) => {
    const key = accountOf(item);
    let group = groups.get(key);
    if (!group) {
      group = { indexes: [], items: [] };
      groups.set(key, group);
    }
    group.indexes.push(index);
    group.items.push(item);
  });
  return [...groups.values()];
}

/**
 * Runs `run` over `items` as one call on a single PostgreSQL, and as one call per account on a
 * distributed database; answers in the items' order.
 */
export async function perAccountWhenDistributed<I, O>(
  db: Executor,
  items: readonly I[],
  accountOf: (item: I) => string,
  run: (items: I[]) => Promise<O[]>,
): Promise<O[]> {
  if (!(await isDistributed(db))) return run([...items]);
  const answers = new Array<O>(items.length);
  await Promise.all(
    groupByAccount(items, accountOf).map(async (group) => {
      const outs = await run(group.items);
      group.indexes.forEach((index, at) => {
        answers[index] = outs[at] as O;
      });
    }),
  );
  return answers;
}

/**
 * Work over the rows of several accounts, such as a sweep or a claim. On a single PostgreSQL it is
 * one call, `run(undefined, budget)`, the one statement the bench measures. On a distributed
 * database, where a statement locks rows of one shard only, `accountsWithWork` reads the accounts
 * with work first, without a lock, and then `run(accountId, room)` works on each with its
 * `account_id` fixed, until `budget` items are done. `run` answers how many it did; the answer is
 * the total.
 */
export async function accountByAccountWhenDistributed(
  db: Executor,
  accountsWithWork: () => Promise<readonly string[]>,
  run: (accountId: string | undefined, room: number) => Promise<number>,
  budget = Number.POSITIVE_INFINITY,
): Promise<number> {
  if (!(await isDistributed(db))) return run(undefined, budget);
  let done = 0;
  for (const accountId of await accountsWithWork()) {
    if (done >= budget) break;
    done += await run(accountId, budget - done);
  }
  return done;
}

/** The accounts that have rows `where` picks in the table of `accountId`, read without a lock. */
export async function accountsWhere(db: Executor, accountId: PgColumn, where: SQL | undefined): Promise<string[]> {
  const rows = await db
    .selectDistinct({ accountId })
    .from(accountId.table as PgTable)
    .where(where);
  return rows.map((row) => String(row.accountId));
}
