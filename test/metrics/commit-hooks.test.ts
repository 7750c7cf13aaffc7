import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { afterCommit } from '@/db';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

describe('afterCommit: counting what committed', () => {
  it('runs at once outside a transaction, after the commit inside one', async () => {
    const ran: string[] = [];
    afterCommit(db(), () => ran.push('alone'));
    expect(ran).toEqual(['alone']);
    await db().transaction(async (tx) => {
      await tx.execute(sql`select 1`);
      afterCommit(tx, () => ran.push('in transaction'));
      expect(ran).toEqual(['alone']);
    });
    expect(ran).toEqual(['alone', 'in transaction']);
  });

  it('drops the work of a transaction that rolls back, and of a savepoint that does', async () => {
    const ran: string[] = [];
    await expect(
      db().transaction(async (tx) => {
        afterCommit(tx, () => ran.push('rolled back'));
        throw new Error('refused');
      }),
    ).rejects.toThrow('refused');
    await db().transaction(async (tx) => {
      afterCommit(tx, () => ran.push('outer'));
      await tx.transaction(async (savepoint) => {
        afterCommit(savepoint, () => ran.push('savepoint kept'));
      });
      await tx
        .transaction(async (savepoint) => {
          afterCommit(savepoint, () => ran.push('savepoint rolled back'));
          throw new Error('undone');
        })
        .catch(() => {});
      expect(ran).toEqual([]);
    });
    expect(ran).toEqual(['outer', 'savepoint kept']);
  });

  it('a hook that throws fails nothing', async () => {
    await db().transaction(async (tx) => {
      afterCommit(tx, () => {
        throw new Error('bookkeeping failed');
      });
    });
  });
});
