import { sql } from 'drizzle-orm';
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
