import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { POST as reportStatus } from '@/app/api/v1/device/messages/[id]/status/route';
import { POST as received } from '@/app/api/v1/device/messages/received/route';
import { POST as claim } from '@/app/api/v1/device/outbox/claim/route';
import { POST as send } from '@/app/api/v1/messages/route';
import { GET as stats } from '@/app/api/v1/stats/messages/route';
import { messages } from '@/db/schema';
import { describeAuthCases } from '../auth-cases';
import { createTestAccount, sharedTestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();
const { fixture } = sharedTestAccount(db);

describeAuthCases('GET /api/v1/stats/messages', { handler: stats, request: {}, accepts: 'account', fixture });

describe('GET /api/v1/stats/messages', () => {
  it('counts today and the last 30 days by state, with every day present, for this account only', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const other = await createTestAccount(db(), { credits: 10 });
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) {
      ids.push(
        (await call(send, { body: { from: account.phone, to: testNumber(), content: 'x' }, apiKey: account.apiKey }))
          .body.id,
      );
    }
    await call(send, { body: { from: other.phone, to: testNumber(), content: 'x' }, apiKey: other.apiKey });
    await call(claim, { body: { limit: 3 }, apiKey: account.deviceKey });
    await call(reportStatus, { params: { id: ids[0]! }, body: { status: 'sent' }, apiKey: account.deviceKey });
    await call(reportStatus, { params: { id: ids[0]! }, body: { status: 'delivered' }, apiKey: account.deviceKey });
    await call(reportStatus, { params: { id: ids[1]! }, body: { status: 'sent' }, apiKey: account.deviceKey });
    await call(reportStatus, { params: { id: ids[2]! }, body: { status: 'failed' }, apiKey: account.deviceKey });
    await call(received, { body: { from: testNumber(), content: 'hi' }, apiKey: account.deviceKey });
    // A message of 40 days ago is outside the window.
    const old = (
      await call(send, { body: { from: account.phone, to: testNumber(), content: 'old' }, apiKey: account.apiKey })
    ).body.id;
    await db()
      .update(messages)
      .set({ createdAt: new Date(Date.now() - 40 * 86_400_000) })
      .where(eq(messages.id, old));

    const res = await call(stats, { apiKey: account.apiKey });
    expect(res.status).toBe(200);
    const totals = { sent: 2, delivered: 1, failed: 1, received: 1, credits_used: 4 };
    expect(res.body.today).toEqual(totals);
    expect(res.body.last_30_days).toEqual(totals);
    expect(res.body.daily).toHaveLength(30);
    const today = new Date().toISOString().slice(0, 10);
    expect(res.body.daily.at(-1)).toEqual({ date: today, queued: 1, sent: 1, delivered: 1, failed: 1, received: 1 });
    expect(res.body.daily.slice(0, -1).every((d: { queued: number }) => d.queued === 0)).toBe(true);
  });
});
