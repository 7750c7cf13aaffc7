import { and, eq, inArray, sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { POST as reportStatus } from '@/app/api/v1/device/messages/[id]/status/route';
import { POST as claim } from '@/app/api/v1/device/outbox/claim/route';
import { POST as send } from '@/app/api/v1/messages/route';
import { messageStatusHistory, messages } from '@/db/schema';
import { earlier } from '../earlier';
import { balanceOf, createTestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

/** Ages the hand-out of `ids` past CLAIM_REDELIVER_AFTER_S (120 s by default), as if that time had gone by. */
async function ageHandOut(ids: string[], seconds = 121) {
  await db()
    .update(messages)
    .set({ updatedAt: earlier(messages.updatedAt, seconds * 1000) })
    .where(inArray(messages.id, ids));
}

describe('a claim whose answer never reached the phone', () => {
  it('is handed out again by the next claim after CLAIM_REDELIVER_AFTER_S, same ids, charged once', async () => {
    const who = await createTestAccount(db(), { credits: 10 });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      const res = await call(send, {
        body: { from: who.phone, to: testNumber(), content: `lost ${i}` },
        apiKey: who.apiKey,
      });
      expect(res.status).toBe(201);
      ids.push(res.body.id);
    }
    const charged = await balanceOf(db(), who.defaultGroupId);
    const claimAs = () =>
      call(claim, { path: '/api/v1/device/outbox/claim', body: { limit: 10 }, apiKey: who.deviceKey });

    // The answer to this claim is "lost": the phone never sees these ids.
    const first = await claimAs();
    expect(first.status).toBe(200);
    expect(first.body.data.map((m: { id: string }) => m.id).sort()).toEqual([...ids].sort());
    // Not before the time is up: a phone that did get them is still sending.
    expect((await claimAs()).body.data).toEqual([]);

    // One of them the phone did report on: that one stays where it is.
    const reported = await call(reportStatus, {
      params: { id: ids[0] as string },
      body: { status: 'sent' },
      apiKey: who.deviceKey,
    });
    expect(reported.status).toBe(200);
    await ageHandOut(ids);

    const again = await claimAs();
    expect(again.status).toBe(200);
    const redelivered = again.body.data as Array<{ id: string; status: string; content: string }>;
    expect(redelivered.map((m) => m.id).sort()).toEqual([ids[1], ids[2]].sort());
    expect(redelivered.every((m) => m.status === 'dispatched')).toBe(true);
    // Handed out again, once: the next claim waits its own full time.
    expect((await claimAs()).body.data).toEqual([]);

    // Charged once, one dispatched transition each, and the phone can report them as usual.
    expect(await balanceOf(db(), who.defaultGroupId)).toBe(charged);
    const dispatched = await db()
      .select({ id: messageStatusHistory.messageId })
      .from(messageStatusHistory)
      .where(and(inArray(messageStatusHistory.messageId, ids), eq(messageStatusHistory.status, 'dispatched')));
    expect(dispatched).toHaveLength(3);
    for (const id of ids.slice(1)) {
      const res = await call(reportStatus, { params: { id }, body: { status: 'sent' }, apiKey: who.deviceKey });
      expect(res.status).toBe(200);
    }
    await ageHandOut(ids);
    expect((await claimAs()).body.data).toEqual([]);
  });

  it('leaves an expired message to the expiry sweep instead of handing it out again', async () => {
    const who = await createTestAccount(db(), { credits: 10 });
    const res = await call(send, { body: { from: who.phone, to: testNumber(), content: 'old' }, apiKey: who.apiKey });
    expect(res.status).toBe(201);
    const claimAs = () =>
      call(claim, { path: '/api/v1/device/outbox/claim', body: { limit: 10 }, apiKey: who.deviceKey });
    expect((await claimAs()).body.data).toHaveLength(1);
    await ageHandOut([res.body.id]);
    await db()
      .update(messages)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(messages.id, res.body.id));
    expect((await claimAs()).body.data).toEqual([]);
  });
});
