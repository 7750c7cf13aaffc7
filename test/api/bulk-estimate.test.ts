import { eq } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GET as readBulk } from '@/app/api/v1/bulk-messages/[id]/route';
import { POST as sendBulk } from '@/app/api/v1/bulk-messages/route';
import { POST as claim } from '@/app/api/v1/device/outbox/claim/route';
import { phoneGroups, phones } from '@/db/schema';
import { addTestPhone, createTestAccount, type TestPhone } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

afterEach(() => {
  vi.useRealTimers();
  vi.unstubAllEnvs();
});

/** `count` distinct valid numbers. */
function numbers(count: number, from = 2000): string[] {
  return Array.from({ length: count }, (_, i) => `+1415555${from + i}`);
}

/** Claims what the phone's pacing hands out now (the real claim path, at the clock's time): how many. */
async function drainOnce(phone: TestPhone): Promise<number> {
  const res = await call(claim, { path: '/api/v1/device/outbox/claim', body: { limit: 100 }, apiKey: phone.deviceKey });
  expect(res.status).toBe(200);
  return res.body.data.length;
}

describe('estimated_completion_at', () => {
  it('a bulk of 300 over 3 phones at 20 a minute finishes within 10 % of its estimate', async () => {
    const owner = await createTestAccount(db(), { credits: 10 });
    const name = `fleet-${crypto.randomUUID()}`;
    const [group] = await db()
      .insert(phoneGroups)
      .values({ accountId: owner.accountId, name, nameKey: name, balance: 300 })
      .returning({ id: phoneGroups.id });
    const fleet: TestPhone[] = [];
    for (let i = 0; i < 3; i++) fleet.push(await addTestPhone(db(), owner, { groupId: group!.id, online: true }));
    for (const phone of fleet) {
      await db().update(phones).set({ messagesPerMinute: 20 }).where(eq(phones.id, phone.phoneId));
    }
    // A simulated clock: the claims, their pacing and the estimate all read it (the database's own
    // now() is not involved in pacing).
    const t0 = Date.now();
    // The phones report nothing: no hand-out is handed out again within the simulated run.
    vi.stubEnv('CLAIM_REDELIVER_AFTER_S', '3600');
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(t0);
    const created = await call(sendBulk, {
      body: { from_group: group!.id, recipients: numbers(300), content: 'Spring sale' },
      apiKey: owner.apiKey,
    });
    expect(created.status).toBe(201);
    expect(created.body.phones.map((p: { count: number }) => p.count)).toEqual([100, 100, 100]);
    const estimated = Date.parse(created.body.estimated_completion_at);

    const stepMs = 5_000;
    let handed = 0;
    let finishedAt: number | undefined;
    let midway: number | undefined;
    for (let t = t0; t <= t0 + 600_000 && finishedAt === undefined; t += stepMs) {
      vi.setSystemTime(t);
      for (const phone of fleet) handed += await drainOnce(phone);
      if (handed === 300) finishedAt = t;
      if (midway === undefined && t >= t0 + 120_000) {
        const read = await call(readBulk, { params: { id: created.body.id }, apiKey: owner.apiKey });
        midway = Date.parse(read.body.estimated_completion_at);
      }
    }
    expect(finishedAt).toBeDefined();
    const actual = (finishedAt as number) - t0;
    expect(Math.abs(estimated - t0 - actual)).toBeLessThanOrEqual(actual * 0.1);
    // Revised as it goes: read halfway, it still points at the same finish.
    expect(Math.abs((midway as number) - t0 - actual)).toBeLessThanOrEqual(actual * 0.1);
    // Done: the time the last message was handed out.
    const done = await call(readBulk, { params: { id: created.body.id }, apiKey: owner.apiKey });
    expect(Date.parse(done.body.estimated_completion_at)).toBe(finishedAt);
  });
});
