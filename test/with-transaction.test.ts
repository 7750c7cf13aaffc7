import { entityKind, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import type { Executor, Transaction } from '@/db';
import { devInbox } from '@/db/schema';
import { isTransaction, withTransaction } from '@/lib/transactions';
import { withTestDatabase } from './setup-db';

const { db } = withTestDatabase();

async function inboxRowsTo(to: string): Promise<number> {
  return (await db().select().from(devInbox).where(eq(devInbox.to, to))).length;
}

describe('withTransaction', () => {
  it('reuses the transaction it is given: the inner work rolls back with the outer', async () => {
    const to = `outer-${crypto.randomUUID()}`;
    let inner: Transaction | undefined;
    await expect(
      db().transaction(async (outer) => {
        await withTransaction(outer, async (tx) => {
          inner = tx;
          await tx.insert(devInbox).values({ channel: 'sms', to, text: 'inner' });
        });
        expect(inner).toBe(outer);
        throw new Error('roll the outer back');
      }),
    ).rejects.toThrow('roll the outer back');
    expect(await inboxRowsTo(to)).toBe(0);
  });

  it('opens a transaction when given the database: a failure undoes everything inside', async () => {
    const to = `own-${crypto.randomUUID()}`;
    await expect(
      withTransaction(db(), async (tx) => {
        expect(tx).not.toBe(db());
        expect(isTransaction(tx)).toBe(true);
        await tx.insert(devInbox).values({ channel: 'sms', to, text: 'first' });
        throw new Error('fail inside');
      }),
    ).rejects.toThrow('fail inside');
    expect(await inboxRowsTo(to)).toBe(0);
    await withTransaction(db(), (tx) => tx.insert(devInbox).values({ channel: 'sms', to, text: 'kept' }));
    expect(await inboxRowsTo(to)).toBe(1);
  });

  it('knows a transaction by its drizzle entity kind, not its class (another copy of drizzle)', async () => {
    // A transaction class of another copy of drizzle: unrelated to ours but for its entity kind.
    class ForeignTransaction {
      static readonly [entityKind] = 'PgTransaction';
      readonly copy = 'other';
    }
    class ForeignDatabase {
      static readonly [entityKind] = 'PgDatabase';
      opened = 0;
      transaction<T>(fn: (tx: unknown) => Promise<T>): Promise<T> {
        this.opened += 1;
        return fn(new ForeignTransaction());
      }
    }
    const foreignTx = new ForeignTransaction() as unknown as Executor;
    expect(isTransaction(foreignTx)).toBe(true);
    expect(await withTransaction(foreignTx, async (tx) => tx)).toBe(foreignTx);

    const foreignDb = new ForeignDatabase();
    expect(isTransaction(foreignDb as unknown as Executor)).toBe(false);
    await withTransaction(foreignDb as unknown as Executor, async (tx) => tx);
    expect(foreignDb.opened).toBe(1);
  });
});
