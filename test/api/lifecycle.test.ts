import { and, eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { POST as reportStatus } from '@/app/api/v1/device/messages/[id]/status/route';
import { POST as claim } from '@/app/api/v1/device/outbox/claim/route';
import { GET as readMessage } from '@/app/api/v1/messages/[id]/route';
import { POST as send } from '@/app/api/v1/messages/route';
import { creditLedger, events, MESSAGE_STATUSES, type MessageStatus, messages, phoneGroups, phones } from '@/db/schema';
import { startMessagingWork } from '@/lib/messages/background';
import { expireMessages } from '@/lib/messages/expire';
import { canMove, REQUEUED_FROM, transitionMessage } from '@/lib/messages/state-machine';
import { createTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

async function queueOne(who: TestAccount, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await call(send, {
    body: { from: who.phone, to: testNumber(), content: 'hi', ...extra },
    apiKey: who.apiKey,
  });
  expect(res.status).toBe(201);
  return res.body.id;
}

async function balanceOf(groupId: number): Promise<number> {
  const [group] = await db()
    .select({ balance: phoneGroups.balance })
    .from(phoneGroups)
    .where(eq(phoneGroups.id, groupId));
  return group!.balance;
}

async function refundsOf(messageId: string) {
  return db()
    .select()
    .from(creditLedger)
    .where(and(eq(creditLedger.messageId, messageId), eq(creditLedger.kind, 'refund')));
}

async function rowOf(id: string) {
  const [row] = await db().select().from(messages).where(eq(messages.id, id));
  return row!;
}

function report(who: TestAccount, id: string, body: Record<string, unknown>) {
  return call(reportStatus, { params: { id }, body, apiKey: who.deviceKey });
}

describe('the delivery state machine', () => {
  it('allows exactly the moves of ADR 0008', () => {
    const allowed = new Set([
      'queued>dispatched',
      'queued>expired',
      'queued>failed',
      'queued>cancelled',
      'dispatched>sent',
      'dispatched>expired',
      'dispatched>failed',
      'dispatched>cancelling',
      'cancelling>cancelled',
      'cancelling>sent',
      'cancelling>expired',
      'cancelling>failed',
      'sent>delivered',
      'sent>failed',
    ]);
    for (const from of MESSAGE_STATUSES) {
      for (const to of MESSAGE_STATUSES) {
        expect(canMove(from, to), `${from} > ${to}`).toBe(allowed.has(`${from}>${to}`));
      }
    }
  });

  it('moves back to queued only as a retry (from dispatched) or a move to another phone (queued, dispatched)', () => {
    expect(REQUEUED_FROM).toEqual({ retrying: ['dispatched'], rerouted: ['queued', 'dispatched'] });
  });

  it.each<[MessageStatus, MessageStatus]>([
    ['delivered', 'sent'],
    ['sent', 'dispatched'],
    ['dispatched', 'queued'],
    ['expired', 'failed'],
    ['failed', 'delivered'],
    ['received', 'sent'],
  ])('refuses %s → %s with 409 INVALID_TRANSITION', async (from, to) => {
    const who = await createTestAccount(db(), { credits: 1 });
    const id = await queueOne(who);
    await db().update(messages).set({ status: from }).where(eq(messages.id, id));
    await expect(transitionMessage(db(), await rowOf(id), to)).rejects.toMatchObject({
      code: 'INVALID_TRANSITION',
      status: 409,
    });
    expect((await rowOf(id)).status).toBe(from);
  });

  it('refuses a move whose starting state changed underneath (stale row)', async () => {
    const who = await createTestAccount(db(), { credits: 1 });
    const id = await queueOne(who);
    const stale = await rowOf(id);
    await transitionMessage(db(), stale, 'failed');
    await expect(transitionMessage(db(), stale, 'dispatched')).rejects.toMatchObject({ code: 'INVALID_TRANSITION' });
    expect(await refundsOf(id)).toHaveLength(1);
  });

  it('records every state with its time, readable by id', async () => {
    const who = await createTestAccount(db(), { credits: 1 });
    const id = await queueOne(who);
    await call(claim, { body: {}, apiKey: who.deviceKey });
    await report(who, id, { status: 'sent' });
    await report(who, id, { status: 'delivered' });
    const res = await call(readMessage, { params: { id }, apiKey: who.apiKey });
    expect(res.body.status).toBe('delivered');
    expect(res.body.history.map((h: { status: string }) => h.status)).toEqual([
      'queued',
      'dispatched',
      'sent',
      'delivered',
    ]);
    const times = res.body.history.map((h: { at: string }) => new Date(h.at).getTime());
    expect([...times].sort((a, b) => a - b)).toEqual(times);
    expect(await refundsOf(id)).toEqual([]);
  });
});

describe('a failed message', () => {
  it('is refunded once to the group charged, with its error, and emits message.failed', async () => {
    const who = await createTestAccount(db(), { credits: 3 });
    const id = await queueOne(who);
    await call(claim, { body: {}, apiKey: who.deviceKey });
    await report(who, id, { status: 'sent' });
    expect(await balanceOf(who.defaultGroupId)).toBe(2);
    const res = await report(who, id, { status: 'failed', error: 'carrier rejected' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'failed', error: 'carrier rejected' });
    expect(await balanceOf(who.defaultGroupId)).toBe(3);
    expect(await refundsOf(id)).toMatchObject([{ amount: 1, groupId: who.defaultGroupId, balanceAfter: 3 }]);
    expect((await report(who, id, { status: 'failed' })).status).toBe(409);
    expect(await refundsOf(id)).toHaveLength(1);
    const read = await call(readMessage, { params: { id }, apiKey: who.apiKey });
    expect(read.body.history.at(-1)).toMatchObject({ status: 'failed', error: 'carrier rejected' });
    const [event] = await db()
      .select()
      .from(events)
      .where(and(eq(events.accountId, who.accountId), eq(events.type, 'message.failed')));
    expect(event).toMatchObject({ phone: who.phone, payload: { id, status: 'failed', from: who.phone } });
  });

  it('can fail straight from queued (the phone refuses it) and is refunded', async () => {
    const who = await createTestAccount(db(), { credits: 1 });
    const id = await queueOne(who);
    expect((await report(who, id, { status: 'failed' })).status).toBe(200);
    expect(await balanceOf(who.defaultGroupId)).toBe(1);
  });

  it('is refunded to the default group when the charged group is gone', async () => {
    const who = await createTestAccount(db(), { credits: 0 });
    const [sales] = await db()
      .insert(phoneGroups)
      .values({ accountId: who.accountId, name: 'Sales', nameKey: 'sales', balance: 1 })
      .returning();
    await db().update(phones).set({ groupId: sales!.id }).where(eq(phones.id, who.phoneId));
    const id = await queueOne(who);
    await db().update(phones).set({ groupId: who.defaultGroupId }).where(eq(phones.id, who.phoneId));
    await db().delete(phoneGroups).where(eq(phoneGroups.id, sales!.id));
    await transitionMessage(db(), await rowOf(id), 'failed', { error: 'x' });
    expect(await balanceOf(who.defaultGroupId)).toBe(1);
  });
});

describe('expiry', () => {
  it('expires queued and dispatched messages past their TTL, refunds each once however often it runs', async () => {
    const who = await createTestAccount(db(), { credits: 5 });
    const queued = await queueOne(who, { ttl_s: 60 });
    const dispatched = await queueOne(who, { ttl_s: 60 });
    const sent = await queueOne(who, { ttl_s: 60 });
    const fresh = await queueOne(who);
    await call(claim, { body: { limit: 1 }, apiKey: who.deviceKey }); // queued is handed out first
    await db().update(messages).set({ status: 'dispatched' }).where(eq(messages.id, dispatched));
    await db().update(messages).set({ status: 'sent' }).where(eq(messages.id, sent));
    expect(await balanceOf(who.defaultGroupId)).toBe(1);

    const later = new Date(Date.now() + 120_000);
    const first = await expireMessages(db(), later);
    const second = await expireMessages(db(), later);
    expect(second).toBe(0);
    expect(first).toBeGreaterThanOrEqual(2);
    expect((await rowOf(queued)).status).toBe('expired');
    expect((await rowOf(dispatched)).status).toBe('expired');
    expect((await rowOf(sent)).status).toBe('sent');
    expect((await rowOf(fresh)).status).toBe('queued');
    expect(await refundsOf(queued)).toHaveLength(1);
    expect(await refundsOf(dispatched)).toHaveLength(1);
    expect(await refundsOf(sent)).toHaveLength(0);
    expect(await balanceOf(who.defaultGroupId)).toBe(3);
    const expiredEvents = await db()
      .select()
      .from(events)
      .where(and(eq(events.accountId, who.accountId), eq(events.type, 'message.expired')));
    expect(expiredEvents.map((e) => (e.payload as { id: string }).id).sort()).toEqual([queued, dispatched].sort());
    expect(expiredEvents.every((e) => e.phone === who.phone)).toBe(true);
  });

  it('refunds once when two sweeps run at the same time', async () => {
    const who = await createTestAccount(db(), { credits: 30 });
    const ids = [];
    for (let i = 0; i < 30; i++) ids.push(await queueOne(who, { ttl_s: 60 }));
    const later = new Date(Date.now() + 120_000);
    const counts = await Promise.all([expireMessages(db(), later), expireMessages(db(), later)]);
    expect(counts[0]! + counts[1]!).toBeGreaterThanOrEqual(30);
    const refunds = await db()
      .select()
      .from(creditLedger)
      .where(and(eq(creditLedger.accountId, who.accountId), eq(creditLedger.kind, 'refund')));
    expect(refunds).toHaveLength(30);
    expect(await balanceOf(who.defaultGroupId)).toBe(30);
  });

  it('lets a status report lose to an expiry cleanly', async () => {
    const who = await createTestAccount(db(), { credits: 1 });
    const id = await queueOne(who, { ttl_s: 60 });
    await call(claim, { body: {}, apiKey: who.deviceKey });
    await expireMessages(db(), new Date(Date.now() + 120_000));
    const res = await report(who, id, { status: 'sent' });
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ code: 'INVALID_TRANSITION', current_status: 'expired' });
  });

  it('runs as background work that stops cleanly', async () => {
    const stop = await startMessagingWork();
    await stop();
  });
});
