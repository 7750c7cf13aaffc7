import { and, eq } from 'drizzle-orm';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { POST as sendBulk } from '@/app/api/v1/bulk-messages/route';
import { POST as claim } from '@/app/api/v1/device/outbox/claim/route';
import { POST as send } from '@/app/api/v1/messages/route';
import { GET as getSending, PATCH as patchSending } from '@/app/api/v1/settings/sending/route';
import { GET as stats } from '@/app/api/v1/stats/messages/route';
import { accountQueues, messages, phoneGroups } from '@/db/schema';
import { balanceOf, createTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

afterEach(() => {
  vi.unstubAllEnvs();
});

async function withLimit(limit: number, credits = 100): Promise<TestAccount> {
  const who = await createTestAccount(db(), { credits });
  const res = await call(patchSending, { method: 'PATCH', body: { max_queued_messages: limit }, apiKey: who.apiKey });
  expect(res.status, res.text).toBe(200);
  return who;
}

function sendOne(who: TestAccount, extra: Record<string, unknown> = {}) {
  return call(send, { body: { from: who.phone, to: testNumber(), content: 'hello', ...extra }, apiKey: who.apiKey });
}

async function queuedOf(who: TestAccount): Promise<number> {
  return db().$count(messages, and(eq(messages.accountId, who.accountId), eq(messages.status, 'queued')));
}

/** What a few seconds' wait would do: the next full-queue send recounts. */
async function letRecount(who: TestAccount) {
  await db().update(accountQueues).set({ recountedAt: null }).where(eq(accountQueues.accountId, who.accountId));
}

describe('max_queued_messages (back-pressure)', () => {
  it('a new account may queue 100,000; PATCH changes it and ACCOUNT_MAX_QUEUED caps it', async () => {
    const who = await createTestAccount(db());
    expect((await call(getSending, { apiKey: who.apiKey })).body.max_queued_messages).toBe(100_000);
    vi.stubEnv('ACCOUNT_MAX_QUEUED', '500');
    expect((await call(getSending, { apiKey: who.apiKey })).body.max_queued_messages).toBe(500);
    const over = await call(patchSending, { method: 'PATCH', body: { max_queued_messages: 501 }, apiKey: who.apiKey });
    expect(over.status).toBe(400);
    expect(over.body.errors.map((e: { path: string }) => e.path)).toEqual(['max_queued_messages']);
    for (const bad of [0, -1, 2.5, '10', null]) {
      const res = await call(patchSending, { method: 'PATCH', body: { max_queued_messages: bad }, apiKey: who.apiKey });
      expect(res.status).toBe(400);
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain('max_queued_messages');
    }
    const ok = await call(patchSending, { method: 'PATCH', body: { max_queued_messages: 250 }, apiKey: who.apiKey });
    expect(ok.body.max_queued_messages).toBe(250);
  });

  it('a send that would pass it answers 429 QUEUE_FULL with Retry-After, before any credit moves', async () => {
    const who = await withLimit(3, 10);
    for (let i = 0; i < 3; i++) expect((await sendOne(who)).status).toBe(201);
    const balance = await balanceOf(db(), who.defaultGroupId);
    const full = await sendOne(who);
    expect(full.status).toBe(429);
    expect(full.contentType).toBe('application/problem+json');
    expect(full.body).toMatchObject({ code: 'QUEUE_FULL', queued: 3, max_queued_messages: 3 });
    expect(Number(full.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(await balanceOf(db(), who.defaultGroupId)).toBe(balance);
    expect(await queuedOf(who)).toBe(3);
    const overview = await call(stats, { apiKey: who.apiKey });
    expect(overview.body.queue).toEqual({ queued: 3, max_queued_messages: 3 });
  });

  it('room comes back when a phone takes messages from the queue', async () => {
    const who = await withLimit(2, 10);
    expect((await sendOne(who)).status).toBe(201);
    expect((await sendOne(who)).status).toBe(201);
    expect((await sendOne(who)).status).toBe(429);
    const claimed = await call(claim, { body: { limit: 1 }, apiKey: who.deviceKey });
    expect(claimed.body.data).toHaveLength(1);
    await letRecount(who);
    expect((await sendOne(who)).status).toBe(201);
    expect((await sendOne(who)).status).toBe(429);
    expect(await queuedOf(who)).toBe(2);
  });

  it('a bulk that would pass it is refused whole, and one that fits is taken', async () => {
    const who = await withLimit(3, 10);
    expect((await sendOne(who)).status).toBe(201);
    const balance = await balanceOf(db(), who.defaultGroupId);
    const big = await call(sendBulk, {
      body: { from: who.phone, recipients: [testNumber(), testNumber(), testNumber()], content: 'hi' },
      apiKey: who.apiKey,
    });
    expect(big.status).toBe(429);
    expect(big.body.code).toBe('QUEUE_FULL');
    expect(big.headers.get('retry-after')).not.toBeNull();
    expect(await balanceOf(db(), who.defaultGroupId)).toBe(balance);
    const fits = await call(sendBulk, {
      body: { from: who.phone, recipients: [testNumber(), testNumber()], content: 'hi' },
      apiKey: who.apiKey,
    });
    expect(fits.status).toBe(201);
    expect(await queuedOf(who)).toBe(3);
  });

  it('sends racing for the last places never pass it, and only the accepted ones are charged', async () => {
    const who = await withLimit(5, 100);
    expect((await sendOne(who)).status).toBe(201);
    const results = await Promise.all(Array.from({ length: 20 }, () => sendOne(who)));
    const statuses = results.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(4);
    expect(statuses.filter((s) => s === 429)).toHaveLength(16);
    expect(await queuedOf(who)).toBe(5);
    const [group] = await db()
      .select({ balance: phoneGroups.balance })
      .from(phoneGroups)
      .where(eq(phoneGroups.id, who.defaultGroupId));
    expect(group?.balance).toBe(95);
  });

  it('bulks and single sends racing for the last places never pass it', async () => {
    const who = await withLimit(10, 100);
    const bulks = Array.from({ length: 4 }, () =>
      call(sendBulk, {
        body: { from: who.phone, recipients: [testNumber(), testNumber(), testNumber()], content: 'hi' },
        apiKey: who.apiKey,
      }),
    );
    const singles = Array.from({ length: 6 }, () => sendOne(who));
    const results = await Promise.all([...bulks, ...singles]);
    expect(results.every((r) => r.status === 201 || r.status === 429)).toBe(true);
    const queued = await queuedOf(who);
    expect(queued).toBeLessThanOrEqual(10);
    expect(queued).toBeGreaterThanOrEqual(9);
    expect(await balanceOf(db(), who.defaultGroupId)).toBe(100 - queued);
  });
});
