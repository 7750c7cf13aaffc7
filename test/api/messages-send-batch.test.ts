import { eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from '@/db';
import { creditLedger, messages, phoneGroups } from '@/db/schema';
import { sendMessage } from '@/lib/messages/send';
import { citusMode } from '../database';
import { createTestAccount, type TestAccount, testNumber } from '../fixtures';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

type Outcome<R> = { sent: R } | { refused: unknown };

/** Runs `send` for every item at once and answers each outcome: what it answered, or what it threw. */
function allAtOnce<T, R>(items: T[], send: (item: T) => Promise<R>): Promise<Array<Outcome<R>>> {
  return Promise.all(
    items.map((item) =>
      send(item).then(
        (sent): Outcome<R> => ({ sent }),
        (refused: unknown) => ({ refused }),
      ),
    ),
  );
}

async function balanceOf(account: TestAccount): Promise<number | undefined> {
  const [group] = await db()
    .select({ balance: phoneGroups.balance })
    .from(phoneGroups)
    .where(eq(phoneGroups.id, account.defaultGroupId));
  return group?.balance;
}

// Sends that reach one instance together go to the database as one statement (lib/messages/accept-batch.ts):
// on PostgreSQL's pipelined connections, and on the embedded database's one session (batches that gather).
describe('sends batched', () => {
  it('many accounts sending at once: each send charged once, each group’s ledger counting down without a gap, and sends do share statements', async () => {
    const accounts = await Promise.all([1, 2, 3].map(() => createTestAccount(db(), { credits: 100 })));
    const sends = accounts.flatMap((account) => Array.from({ length: 20 }, (_, i) => ({ account, i })));
    const results = await allAtOnce(sends, ({ account, i }) =>
      sendMessage(db(), account.accountId, {
        origin: 'api',
        from: account.phone,
        to: testNumber(),
        content: `batch ${i}`,
      }),
    );
    expect(results.every((result) => 'sent' in result && result.sent.status === 'queued')).toBe(true);

    for (const account of accounts) {
      expect(await balanceOf(account)).toBe(80);
      const charges = await db().select().from(creditLedger).where(eq(creditLedger.accountId, account.accountId));
      const messageCharges = charges.filter((charge) => charge.kind === 'message_charge');
      expect(messageCharges.map((charge) => charge.balanceAfter).sort((a, b) => a - b)).toEqual(
        Array.from({ length: 20 }, (_, i) => 80 + i),
      );
      const sent = await db().select().from(messages).where(eq(messages.accountId, account.accountId));
      expect(new Set(messageCharges.map((charge) => charge.messageId))).toEqual(new Set(sent.map((row) => row.id)));
    }
    // On a Citus database the batch never runs (lib/messages/accept-batch.ts): each send is its own transaction.
    if (citusMode()) return;
    // Rows written by one transaction share its xmin: 60 sends alone would be 60 transactions.
    const [written] = await queryRows<{ transactions: number }>(
      db(),
      sql`select count(distinct xmin::text)::int as transactions from messages
          where account_id in (${sql.join(
            accounts.map((account) => sql`${account.accountId}::uuid`),
            sql`, `,
          )})`,
    );
    expect(written?.transactions).toBeLessThan(20);
  });

  it('a group that cannot cover all its sends of a batch still sends what it can cover, one by one', async () => {
    const poor = await createTestAccount(db(), { credits: 3 });
    const results = await allAtOnce(
      Array.from({ length: 8 }, (_, i) => i),
      (i) =>
        sendMessage(db(), poor.accountId, { origin: 'api', from: poor.phone, to: testNumber(), content: `poor ${i}` }),
    );
    const sent = results.filter((result) => 'sent' in result);
    const refused = results.flatMap((result) => ('refused' in result ? [result.refused] : []));
    expect(sent).toHaveLength(3);
    expect(refused).toHaveLength(5);
    for (const error of refused) expect(error).toMatchObject({ code: 'INSUFFICIENT_CREDITS', status: 402 });
    expect(await balanceOf(poor)).toBe(0);
  });

  it('one bad send in a batch gets its own answer and the others go through', async () => {
    const good = await createTestAccount(db(), { credits: 10 });
    const other = await createTestAccount(db(), { credits: 10 });
    const results = await allAtOnce(
      [
        { from: good.phone, requestId: 'same' },
        { from: good.phone, requestId: 'same' },
        { from: other.phone, requestId: undefined }, // another account's phone: 403
        { from: good.phone, requestId: undefined },
        { from: good.phone, requestId: undefined },
      ],
      ({ from, requestId }) =>
        sendMessage(db(), good.accountId, { origin: 'api', from, to: testNumber(), content: 'mixed', requestId }),
    );
    const [first, second, foreign, ...rest] = results;
    const duplicate = [first, second].find((result) => result && 'refused' in result);
    const original = [first, second].find((result) => result && 'sent' in result);
    expect(original).toMatchObject({ sent: { status: 'queued' } });
    expect(duplicate).toMatchObject({
      refused: { code: 'DUPLICATE_REQUEST', extra: { message_id: original && 'sent' in original && original.sent.id } },
    });
    expect(foreign).toMatchObject({ refused: { status: 403 } });
    for (const result of rest) expect(result).toMatchObject({ sent: { status: 'queued' } });
    expect(await balanceOf(good)).toBe(7);
  });
});
