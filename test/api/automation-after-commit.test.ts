import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { POST as received } from '@/app/api/v1/device/messages/received/route';
import { POST as createRule } from '@/app/api/v1/inbound-rules/route';
import { messages, pendingAutomation } from '@/db/schema';
import { recoverPendingAutomation } from '@/lib/automation/pending';
import { receiveMessage } from '@/lib/messages/receive';
import { onRealPostgres } from '../database';
import { createTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { until } from '../poll';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

async function replyRule(account: TestAccount) {
  const res = await call(createRule, {
    body: { name: 'auto', actions: [{ type: 'reply', content: 'Thanks' }] },
    apiKey: account.apiKey,
  });
  expect(res.status, res.text).toBe(201);
}

async function rows(account: TestAccount) {
  return db()
    .select({ direction: messages.direction, automation: messages.automation })
    .from(messages)
    .where(eq(messages.accountId, account.accountId));
}

describe('inbound automation runs after the message is recorded', () => {
  it('a message committed whose rules never ran keeps its mark, and the recovery sweep runs them once', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    await replyRule(account);
    const principal = {
      kind: 'device' as const,
      deviceId: account.deviceId,
      accountId: account.accountId,
      phoneNumber: account.phone,
      status: 'activated' as const,
    };
    // Recorded inside a caller's transaction, which commits; then the process stops before the
    // caller runs the automation it was handed.
    const { pending } = await db().transaction((tx) =>
      receiveMessage(tx, principal, { from: testNumber(), content: 'hello', deviceMessageId: crypto.randomUUID() }),
    );
    expect(pending).toMatchObject({ accountId: account.accountId });
    expect(await rows(account)).toEqual([{ direction: 'inbound', automation: null }]);
    // A fresh mark belongs to the request that wrote it: the sweep leaves it.
    expect(await recoverPendingAutomation(db())).toBe(0);
    await db()
      .update(pendingAutomation)
      .set({ createdAt: sql`now() - interval '5 minutes'` })
      .where(eq(pendingAutomation.accountId, account.accountId));
    expect(await recoverPendingAutomation(db())).toBe(1);
    expect(await recoverPendingAutomation(db())).toBe(0);
    const after = await rows(account);
    expect(after.filter((row) => row.direction === 'outbound')).toHaveLength(1);
    expect(after.find((row) => row.direction === 'inbound')?.automation).toEqual([
      expect.objectContaining({ action: 'reply', result: 'sent' }),
    ]);
    expect(
      await db().select().from(pendingAutomation).where(eq(pendingAutomation.accountId, account.accountId)),
    ).toEqual([]);
  });

  it('an account without rules or HELP text leaves no mark', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const res = await call(received, {
      body: { from: testNumber(), content: 'hello', device_message_id: crypto.randomUUID() },
      apiKey: account.deviceKey,
    });
    expect(res.status, res.text).toBe(201);
    expect(
      await db().select().from(pendingAutomation).where(eq(pendingAutomation.accountId, account.accountId)),
    ).toEqual([]);
  });

  it.runIf(onRealPostgres())(
    'the message is committed while its rules wait: a rule blocked on its lock holds no inbound transaction',
    async () => {
      const account = await createTestAccount(db(), { credits: 10 });
      await replyRule(account);
      // Another transaction holds the account's automatic-SMS lock (lockCounterpart) until released.
      let release = () => {};
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      let locked = () => {};
      const isLocked = new Promise<void>((resolve) => {
        locked = resolve;
      });
      const holder = db().transaction(async (tx) => {
        await tx.execute(sql`select pg_advisory_xact_lock(hashtextextended(${`auto:${account.accountId}`}, 0))`);
        locked();
        await released;
      });
      await isLocked;
      const deviceMessageId = crypto.randomUUID();
      let answered = false;
      const inbound = call(received, {
        body: { from: testNumber(), content: 'hello', device_message_id: deviceMessageId },
        apiKey: account.deviceKey,
      }).finally(() => {
        answered = true;
      });
      // The message and its mark are visible to everyone while its rule still waits.
      await until(
        async () =>
          (
            await db()
              .select({ id: messages.id })
              .from(messages)
              .where(and(eq(messages.accountId, account.accountId), eq(messages.deviceMessageId, deviceMessageId)))
          ).length === 1,
        { timeoutMs: 20_000 },
      );
      expect(answered).toBe(false);
      expect((await rows(account)).filter((row) => row.direction === 'outbound')).toEqual([]);
      release();
      await holder;
      const res = await inbound;
      expect(res.status, res.text).toBe(201);
      expect(res.body.automation).toEqual([expect.objectContaining({ action: 'reply', result: 'sent' })]);
    },
    60_000,
  );
});
