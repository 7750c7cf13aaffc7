import { and, eq, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { POST as bulkRoute } from '@/app/api/v1/bulk-messages/route';
import { POST as sendRoute } from '@/app/api/v1/messages/route';
import { DELETE as deletePhoneRoute } from '@/app/api/v1/phones/[id]/route';
import { queryRows } from '@/db';
import { creditLedger, events, messages, phoneGroups } from '@/db/schema';
import { claimOutbox } from '@/lib/messages/claim';
import { reportMessageStatus } from '@/lib/messages/report-status';
import { sendMessage } from '@/lib/messages/send';
import { PHONE_REMOVED_ERROR } from '@/lib/phones/delete';
import { onRealPostgres } from '../database';
import { createTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { someoneWaitsOnALock } from '../poll';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

async function balanceOf(groupId: number): Promise<number> {
  const [group] = await db()
    .select({ balance: phoneGroups.balance })
    .from(phoneGroups)
    .where(eq(phoneGroups.id, groupId));
  return group!.balance;
}

async function ledgerOf(groupId: number) {
  return db().select().from(creditLedger).where(eq(creditLedger.groupId, groupId));
}

async function ledgerSum(groupId: number): Promise<number> {
  const [sum] = await queryRows<{ total: number }>(
    db(),
    sql`select coalesce(sum(amount), 0)::int as total from credit_ledger where group_id = ${groupId}`,
  );
  return Number(sum!.total);
}

/** The phone's device, as the device API's key names it. */
function deviceOf(who: TestAccount) {
  return {
    kind: 'device' as const,
    accountId: who.accountId,
    deviceId: who.deviceId,
    phoneNumber: who.phone,
    status: 'activated' as const,
  };
}

function removePhone(who: TestAccount) {
  return call(deletePhoneRoute, { method: 'DELETE', params: { id: who.phoneId }, apiKey: who.apiKey });
}

describe('deleting a phone with messages not sent yet', () => {
  it('fails them as any refund does: refunded, and message.failed emitted with the reason', async () => {
    const who = await createTestAccount(db(), { credits: 5 });
    const queued = await sendMessage(db(), who.accountId, {
      origin: 'api',
      from: who.phone,
      to: testNumber(),
      content: 'one',
    });
    const dispatched = await sendMessage(db(), who.accountId, {
      origin: 'api',
      from: who.phone,
      to: testNumber(),
      content: 'two',
    });
    const [claimed] = await claimOutbox(db(), deviceOf(who), { limit: 1, waitMs: 0 });
    expect(claimed?.id).toBe(queued.id);
    expect(await balanceOf(who.defaultGroupId)).toBe(3);

    expect((await removePhone(who)).status).toBe(204);

    expect(await balanceOf(who.defaultGroupId)).toBe(5);
    const ledger = await ledgerOf(who.defaultGroupId);
    expect(ledger.filter((row) => row.kind === 'refund').map((row) => row.messageId)).toEqual(
      expect.arrayContaining([queued.id, dispatched.id]),
    );
    const failed = await db()
      .select()
      .from(events)
      .where(and(eq(events.accountId, who.accountId), eq(events.type, 'message.failed')));
    expect(failed).toHaveLength(2);
    for (const id of [queued.id, dispatched.id]) {
      expect(failed.find((event) => (event.payload as { id: string }).id === id)).toMatchObject({
        phone: who.phone,
        payload: { id, status: 'failed', error: PHONE_REMOVED_ERROR, from: who.phone },
      });
    }
  });
});

describe.runIf(onRealPostgres())('deleting a phone while sends are in flight (Postgres)', () => {
  it('never deadlocks: each send or bulk is 201 and refunded, or 403/404; the ledger balances', async () => {
    const credits = 100;
    const who = await createTestAccount(db(), { credits });
    const ledgerBefore = await ledgerSum(who.defaultGroupId);
    const sends = Array.from({ length: 50 }, (_, index) =>
      call(sendRoute, {
        body: { from: who.phone, to: testNumber(), content: `race ${index}` },
        apiKey: who.apiKey,
      }),
    );
    const bulks = Array.from({ length: 5 }, (_, index) =>
      call(bulkRoute, {
        body: { from: who.phone, recipients: [testNumber(), testNumber()], content: `bulk race ${index}` },
        apiKey: who.apiKey,
      }),
    );
    // The deletion starts among the sends, so some commit before it and some wait on it.
    const removal = new Promise((resolve) => setTimeout(resolve, 5)).then(() => removePhone(who));
    const answers = await Promise.all([...sends, ...bulks]);
    expect((await removal).status).toBe(204);

    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => ![201, 403, 404].includes(status))).toEqual([]);
    const accepted = answers
      .filter((answer) => answer.status === 201)
      .flatMap((answer) => (answer.body.message_ids ?? [answer.body.id]) as string[]);

    const ledger = await ledgerOf(who.defaultGroupId);
    const charged = ledger.filter((row) => row.kind === 'message_charge').map((row) => row.messageId);
    const refunded = ledger.filter((row) => row.kind === 'refund').map((row) => row.messageId);
    expect(charged.sort()).toEqual([...accepted].sort());
    expect(refunded.sort()).toEqual([...accepted].sort());
    expect(await ledgerSum(who.defaultGroupId)).toBe(ledgerBefore);
    expect(await balanceOf(who.defaultGroupId)).toBe(credits);
  });
});

describe.runIf(onRealPostgres())('deleting a phone and its group at once (Postgres)', () => {
  it('never deadlocks: both answer 204 and every credit is accounted for', async () => {
    const { POST: createGroup } = await import('@/app/api/v1/phone-groups/route');
    const { DELETE: deleteGroupRoute } = await import('@/app/api/v1/phone-groups/[id]/route');
    const { PATCH: updatePhone } = await import('@/app/api/v1/phones/[id]/route');
    const { POST: transfer } = await import('@/app/api/v1/credits/transfer/route');
    for (let round = 0; round < 8; round++) {
      const who = await createTestAccount(db(), { plan: 'pro', credits: 100 });
      const group = await call(createGroup, { body: { name: `G${round}` }, apiKey: who.apiKey });
      await call(transfer, { body: { to_group: group.body.id, amount: 10 }, apiKey: who.apiKey });
      await call(updatePhone, {
        method: 'PATCH',
        params: { id: who.phoneId },
        body: { group_id: group.body.id },
        apiKey: who.apiKey,
      });
      for (let i = 0; i < 3; i++) {
        await sendMessage(db(), who.accountId, { origin: 'api', from: who.phone, to: testNumber(), content: `m${i}` });
      }
      const [phoneGone, groupGone] = await Promise.all([
        removePhone(who),
        call(deleteGroupRoute, { method: 'DELETE', params: { id: String(group.body.id) }, apiKey: who.apiKey }),
      ]);
      expect([phoneGone.status, groupGone.status], `round ${round}`).toEqual([204, 204]);
      // Three messages charged and refunded, 10 credits moved and merged back: the default group is whole.
      expect(await balanceOf(who.defaultGroupId)).toBe(100);
      expect(await ledgerSum(who.defaultGroupId)).toBe(await balanceOf(who.defaultGroupId));
    }
  });
});

describe.runIf(onRealPostgres())('deleting a phone while it reports on an old message (Postgres)', () => {
  it('waits for the report instead of deadlocking with it: the report commits, the deletion answers 204', async () => {
    const who = await createTestAccount(db(), { credits: 5 });
    const device = deviceOf(who);
    const sent = await sendMessage(db(), who.accountId, {
      origin: 'api',
      from: who.phone,
      to: testNumber(),
      content: 'old',
    });
    await claimOutbox(db(), device, { limit: 1, waitMs: 0 });
    await reportMessageStatus(db(), device, sent.id, { status: 'sent' });
    // Ten days old: a report on it marks its day of the statistics' rollups stale, as the deletion marks every day.
    await db()
      .update(messages)
      .set({ createdAt: sql`now() - interval '10 days'` })
      .where(and(eq(messages.accountId, who.accountId), eq(messages.id, sent.id)));

    let removal: Promise<{ status: number }> | undefined;
    // The report's transaction, held open: the message's row is locked first, as the report locks it.
    const report = db().transaction(async (tx) => {
      await tx.execute(sql`select 1 from messages where account_id = ${who.accountId} and id = ${sent.id} for update`);
      removal = removePhone(who);
      // The deletion waits on that row before it marks any day (lib/phones/delete.ts `lockMessagesOf`):
      // had it marked them first, the report's mark below would wait on it, and it on the report.
      await someoneWaitsOnALock(db());
      return reportMessageStatus(tx, device, sent.id, { status: 'delivered' });
    });
    expect((await report).status).toBe('delivered');
    expect((await removal!).status).toBe(204);
    const left = await db()
      .select({ id: messages.id })
      .from(messages)
      .where(and(eq(messages.accountId, who.accountId), eq(messages.id, sent.id)));
    expect(left).toEqual([]);
  });
});
