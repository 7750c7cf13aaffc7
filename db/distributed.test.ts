import { describe, expect, it } from 'vitest';
import type { Executor } from './client';
import { groupByAccount, isDistributed, perAccountWhenDistributed } from './distributed';

/** An executor whose database answers whether the Citus extension is there, counting the questions. */
function fakeDatabase(citus: boolean | 'fails') {
  const asked = { count: 0 };
  const db = {
    execute: async () => {
      asked.count++;
      if (citus === 'fails') throw new Error('no such catalog');
      return [{ citus }];
    },
  } as unknown as Executor;
  return { db, asked };
}

type Item = { account: string; n: number };
const items: Item[] = [
  { account: 'a', n: 0 },
  { account: 'b', n: 1 },
  { account: 'a', n: 2 },
  { account: 'c', n: 3 },
];

describe('batches on a distributed database', () => {
  it('groups items by account in first-seen order, with their indexes', () => {
    expect(groupByAccount(items, (item) => item.account)).toEqual([
      { indexes: [0, 2], items: [items[0], items[2]] },
      { indexes: [1], items: [items[1]] },
      { indexes: [3], items: [items[3]] },
    ]);
  });

  it('asks once per database handle; a database that cannot answer is not distributed', async () => {
    const citus = fakeDatabase(true);
    expect(await isDistributed(citus.db)).toBe(true);
    expect(await isDistributed(citus.db)).toBe(true);
    expect(citus.asked.count).toBe(1);
    expect(await isDistributed(fakeDatabase('fails').db)).toBe(false);
  });

  it('runs one call on a single PostgreSQL and one per account on Citus, answering in the items’ order', async () => {
    for (const [citus, calls] of [
      [false, [[0, 1, 2, 3]]],
      [true, [[0, 2], [1], [3]]],
    ] as const) {
      const seen: number[][] = [];
      const answers = await perAccountWhenDistributed(
        fakeDatabase(citus).db,
        items,
        (item) => item.account,
        async (group) => {
          seen.push(group.map((item) => item.n));
          return group.map((item) => `${item.account}${item.n}`);
        },
      );
      expect(seen).toEqual(calls);
      expect(answers).toEqual(['a0', 'b1', 'a2', 'c3']);
    }
  });
});
