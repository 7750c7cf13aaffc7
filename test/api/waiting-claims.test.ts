import { afterEach, describe, expect, it, vi } from 'vitest';
import { POST as claim } from '@/app/api/v1/device/outbox/claim/route';
import { MAX_WAITING_CLAIMS_PER_DEVICE, openSessions, WAITING_CLAIM_RETRY_AFTER_S } from '@/lib/devices/sessions';
import { addTestPhone, createTestAccount } from '../fixtures';
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
