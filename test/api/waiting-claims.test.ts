import type { SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { POST as claim } from '@/app/api/v1/device/outbox/claim/route';
import { POST as send } from '@/app/api/v1/messages/route';
import { MAX_WAITING_CLAIMS_PER_DEVICE, openSessions, WAITING_CLAIM_RETRY_AFTER_S } from '@/lib/devices/sessions';
import { probeClaimBeforeWaiting, probeItemOf, WAITING_PROBE_WINDOW_MS } from '@/lib/messages/claim-probe';
import { addTestPhone, createTestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { latch } from '../latch';
import { until } from '../poll';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

const controllers: AbortController[] = [];
afterEach(async () => {
  for (const controller of controllers.splice(0)) controller.abort();
  await until(() => openSessions('poll') === 0);
  vi.unstubAllEnvs();
});

/** A claim that waits up to 30 s; the test's end aborts it (the client hangs up). */
async function waitingClaim(deviceKey: string) {
  const controller = new AbortController();
  controllers.push(controller);
  const res = await claim(
    new Request('http://localhost:3000/api/v1/device/outbox/claim?wait=30', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': deviceKey },
      body: '{}',
      signal: controller.signal,
    }),
    { params: Promise.resolve({}) },
  );
  return { status: res.status, headers: res.headers, body: await res.json(), at: performance.now() };
}

describe('waiting claims are capped like event streams', () => {
  it(`one device holds at most ${MAX_WAITING_CLAIMS_PER_DEVICE}: each newer one answers the oldest at once, empty`, async () => {
    const who = await createTestAccount(db(), { credits: 5 });
    const started = performance.now();
    const claims = Array.from({ length: 12 }, () => waitingClaim(who.deviceKey));
    // Ten of the twelve answer long before their 30 s wait (200, nothing claimed); two stay waiting.
    const answered: Awaited<ReturnType<typeof waitingClaim>>[] = [];
    for (const pending of claims) void pending.then((answer) => answered.push(answer));
    await until(() => answered.length === 10, { timeoutMs: 15_000 });
    for (const answer of answered) {
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ data: [], cancel: [] });
      expect(answer.at - started).toBeLessThan(15_000);
    }
    expect(openSessions('poll', who.accountId)).toBe(MAX_WAITING_CLAIMS_PER_DEVICE);
  });

  it('past WAITING_CLAIMS_PER_ACCOUNT the account’s next waiting claim answers 429 with Retry-After', async () => {
    vi.stubEnv('WAITING_CLAIMS_PER_ACCOUNT', '2');
    const who = await createTestAccount(db(), { credits: 5 });
    const second = await addTestPhone(db(), who);
    const third = await addTestPhone(db(), who);
    void waitingClaim(who.deviceKey);
    void waitingClaim(second.deviceKey);
    await until(() => openSessions('poll', who.accountId) === 2);
    const refused = await waitingClaim(third.deviceKey);
    expect(refused.status).toBe(429);
    expect(refused.headers.get('retry-after')).toBe(String(WAITING_CLAIM_RETRY_AFTER_S));
    expect(refused.body).toMatchObject({ code: 'RATE_LIMITED' });
    expect(refused.body.detail).toContain('waiting claims');
    // Another account is not held by this one's cap.
    const other = await createTestAccount(db(), { credits: 5 });
    void waitingClaim(other.deviceKey);
    await until(() => openSessions('poll', other.accountId) === 1);
  });

  it('past WAITING_CLAIMS_PER_INSTANCE any next waiting claim answers 503 with Retry-After', async () => {
    vi.stubEnv('WAITING_CLAIMS_PER_INSTANCE', '1');
    const first = await createTestAccount(db(), { credits: 5 });
    const second = await createTestAccount(db(), { credits: 5 });
    void waitingClaim(first.deviceKey);
    await until(() => openSessions('poll') === 1);
    const refused = await waitingClaim(second.deviceKey);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe(String(WAITING_CLAIM_RETRY_AFTER_S));
    expect(refused.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  });
});

/** Whether `query` is a claim probe (lib/messages/claim-probe.ts) looking at any of `phoneIds`. */
function isProbeOf(query: unknown, ...phoneIds: string[]): boolean {
  const { sql: text, params } = new PgDialect().sqlToQuery(query as SQL);
  return (
    text.includes('as p(account_id, phone_id') &&
    phoneIds.some((id) => params.some((param) => String(param).includes(id)))
  );
}

describe('a long-poll’s look before it waits', () => {
  it('goes in one statement with the looks of the next few milliseconds', async () => {
    const who = await createTestAccount(db(), { credits: 5 });
    const second = await addTestPhone(db(), who);
    const execute = vi.spyOn(db(), 'execute');
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const look = (phoneId: string) =>
        probeClaimBeforeWaiting(db(), probeItemOf({ accountId: who.accountId, id: phoneId }, new Date()));
      const first = look(who.phoneId);
      await vi.advanceTimersByTimeAsync(WAITING_PROBE_WINDOW_MS - 5);
      expect(execute.mock.calls.filter(([query]) => isProbeOf(query, who.phoneId))).toHaveLength(0);
      const other = look(second.phoneId);
      await vi.advanceTimersByTimeAsync(5);
      expect(await Promise.all([first, other])).toEqual([
        expect.objectContaining({ due: false }),
        expect.objectContaining({ due: false }),
      ]);
      const statements = execute.mock.calls.filter(([query]) => isProbeOf(query, who.phoneId, second.phoneId));
      expect(statements).toHaveLength(1);
      expect(isProbeOf(statements[0]![0], who.phoneId) && isProbeOf(statements[0]![0], second.phoneId)).toBe(true);
    } finally {
      vi.useRealTimers();
      execute.mockRestore();
    }
  });

  it('does not hold back a send that wakes the claim while the look is still out', async () => {
    const who = await createTestAccount(db(), { credits: 5 });
    const release = latch();
    const execute = db().execute.bind(db());
    // The phone's look answers only once the test lets it: the claim must not need that answer.
    const spy = vi
      .spyOn(db(), 'execute')
      .mockImplementation(((query: SQL) =>
        isProbeOf(query, who.phoneId) ? release.reached.then(() => execute(query)) : execute(query)) as never);
    try {
      const pending = waitingClaim(who.deviceKey);
      await until(() => spy.mock.calls.some(([query]) => isProbeOf(query, who.phoneId)));
      const sent = await call(send, {
        body: { from: who.phone, to: testNumber(), content: 'woken' },
        apiKey: who.apiKey,
      });
      expect(sent.status).toBe(201);
      const answer = await pending;
      expect(answer.status).toBe(200);
      expect(answer.body.data).toEqual([expect.objectContaining({ content: 'woken' })]);
    } finally {
      release.reach();
      spy.mockRestore();
    }
  });
});
