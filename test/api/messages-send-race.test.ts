import { eq, sql } from 'drizzle-orm';
import { expect, it } from 'vitest';
import { PIPELINE_LOCK_TIMEOUT_MS } from '@/db';
import { creditLedger, messages, phoneGroups } from '@/db/schema';
import { sendMessage } from '@/lib/messages/send';
import { onRealPostgres } from '../database';
import { createTestAccount, testNumber } from '../fixtures';
import { latch } from '../latch';
import { someoneWaitsOnALock as waitsOnALock } from '../poll';
import { withTestDatabase } from '../setup-db';

const { db, handle } = withTestDatabase();

/** Until a statement of this database waits on a lock (the embedded database runs one transaction at a time). */
async function someoneWaitsOnALock(): Promise<void> {
  if (handle().driver.kind === 'pglite') return;
  await waitsOnALock(db());
}

it('a send whose request_id another send commits while it waits answers 409, charges nothing, and leaves the caller’s transaction usable', async () => {
  const racer = await createTestAccount(db(), { credits: 10 });
  const input = {
    origin: 'api' as const,
    from: racer.phone,
    to: testNumber(),
    content: 'race',
    requestId: 'late-commit',
  };
  const { reached: released, reach: release } = latch();
  const { reached: firstId, reach: firstSent } = latch<string>();
  // The first send holds its transaction (and the group's row lock) open until released.
  const first = db().transaction(async (tx) => {
    firstSent((await sendMessage(tx, racer.accountId, input)).id);
    await released;
  });
  const id = await firstId;
  const second = db().transaction(async (tx) => {
    const refused = await sendMessage(tx, racer.accountId, input).catch((error: unknown) => error);
    const other = await sendMessage(tx, racer.accountId, { ...input, requestId: undefined });
    return { refused, other };
  });
  await someoneWaitsOnALock();
  release();
  await first;
  const { refused, other } = await second;

  expect(refused).toMatchObject({ code: 'DUPLICATE_REQUEST', status: 409, extra: { message_id: id } });
  expect(other.status).toBe('queued');
  const [group] = await db()
    .select({ balance: phoneGroups.balance })
    .from(phoneGroups)
    .where(eq(phoneGroups.id, racer.defaultGroupId));
  expect(group?.balance).toBe(8);
  const rows = await db().select().from(messages).where(eq(messages.accountId, racer.accountId));
  expect(rows.map((row) => row.id).sort()).toEqual([id, other.id].sort());
  const charges = await db().select().from(creditLedger).where(eq(creditLedger.accountId, racer.accountId));
  const messageCharges = charges.filter((charge) => charge.kind === 'message_charge');
  expect(messageCharges.map((charge) => charge.messageId).sort()).toEqual([id, other.id].sort());
  expect(messageCharges.map((charge) => charge.balanceAfter).sort()).toEqual([8, 9]);
});

it.runIf(onRealPostgres())(
  'a send held on its group’s lock past the pipelined connections’ lock_timeout lands through the pool, and other accounts’ sends go on meanwhile',
  async () => {
    const held = await createTestAccount(db(), { credits: 10 });
    const other = await createTestAccount(db(), { credits: 10 });
    const { reached: released, reach: release } = latch();
    const { reached: lockTaken, reach: locked } = latch();
    const holder = db().transaction(async (tx) => {
      await tx.execute(
        sql`select balance from phone_groups where account_id = ${held.accountId} and id = ${held.defaultGroupId} for update`,
      );
      locked();
      await released;
    });
    await lockTaken;
    const started = Date.now();
    const waiting = sendMessage(db(), held.accountId, {
      origin: 'api',
      from: held.phone,
      to: testNumber(),
      content: 'held',
    });
    let outcome: unknown;
    void waiting.then(
      (message) => (outcome = message),
      (error: unknown) => (outcome = error),
    );
    // Past the pipeline's lock_timeout the send gave up there; it is still waiting (on the pool), not failed.
    while (Date.now() - started < 4 * PIPELINE_LOCK_TIMEOUT_MS) await someoneWaitsOnALock();
    await someoneWaitsOnALock();
    expect(outcome).toBeUndefined();
    const meanwhile = await sendMessage(db(), other.accountId, {
      origin: 'api',
      from: other.phone,
      to: testNumber(),
      content: 'free',
    });
    expect(meanwhile.status).toBe('queued');
    expect(outcome).toBeUndefined();

    release();
    await holder;
    const sent = await waiting;
    expect(sent.status).toBe('queued');
    const charges = await db().select().from(creditLedger).where(eq(creditLedger.accountId, held.accountId));
    expect(charges.filter((charge) => charge.kind === 'message_charge').map((charge) => charge.messageId)).toEqual([
      sent.id,
    ]);
  },
);
