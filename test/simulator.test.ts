import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { GET as devInbox } from '@/app/api/dev/inbox/route';
import { POST as createApiKey } from '@/app/api/v1/auth/api-keys/route';
import { POST as bindConfirm } from '@/app/api/v1/auth/bind/confirm/route';
import { POST as bindRequest } from '@/app/api/v1/auth/bind/request-code/route';
import { POST as reportStatus } from '@/app/api/v1/device/messages/[id]/status/route';
import { POST as received } from '@/app/api/v1/device/messages/received/route';
import { POST as claim } from '@/app/api/v1/device/outbox/claim/route';
import { POST as heartbeats } from '@/app/api/v1/heartbeats/route';
import { POST as cancelMessage } from '@/app/api/v1/messages/[id]/cancel/route';
import { GET as readMessage } from '@/app/api/v1/messages/[id]/route';
import { POST as send } from '@/app/api/v1/messages/route';
import { POST as registerDevice } from '@/app/api/v1/phones/register-device/route';
import { POST as verifySim } from '@/app/api/v1/phones/verify-sim/route';
import { devices, messages, phones } from '@/db/schema';
import type { RouteHandler } from '@/lib/http/route';
import { activateDevice } from '@/tools/device-sim/activate';
import { DeviceClient, type Fetch } from '@/tools/device-sim/client';
import { deliver, type RunOptions, runDevice } from '@/tools/device-sim/run';
import { createTestAccount, type TestAccount, testNumber } from './fixtures';
import { call } from './http';
import { until } from './poll';
import { withTestDatabase } from './setup-db';

const { db } = withTestDatabase();

const ROUTES: [string, RegExp, RouteHandler][] = [
  ['POST', /^\/api\/v1\/phones\/register-device$/, registerDevice],
  ['POST', /^\/api\/v1\/phones\/verify-sim$/, verifySim],
  ['GET', /^\/api\/dev\/inbox$/, devInbox],
  ['POST', /^\/api\/v1\/auth\/bind\/request-code$/, bindRequest],
  ['POST', /^\/api\/v1\/auth\/bind\/confirm$/, bindConfirm],
  ['POST', /^\/api\/v1\/auth\/api-keys$/, createApiKey],
  ['POST', /^\/api\/v1\/heartbeats$/, heartbeats],
  ['POST', /^\/api\/v1\/device\/outbox\/claim$/, claim],
  ['POST', /^\/api\/v1\/device\/messages\/received$/, received],
  ['POST', /^\/api\/v1\/device\/messages\/(?<id>[^/]+)\/status$/, reportStatus],
];

/** `fetch` that hands each request to the route handler Next would run, in process. */
const routedFetch: Fetch = async (input, init) => {
  const req = new Request(input, init);
  const { pathname } = new URL(req.url);
  for (const [method, pattern, handler] of ROUTES) {
    const match = pattern.exec(pathname);
    if (match && method === req.method) return handler(req, { params: Promise.resolve({ ...match.groups }) });
  }
  return new Response('not routed', { status: 404 });
};

const BASE_URL = 'http://127.0.0.1:3000';

function sendFrom(who: { apiKey: string; phone: string }) {
  return call(send, {
    body: { from: who.phone, to: testNumber(), content: 'from the simulator test' },
    apiKey: who.apiKey,
  });
}

async function statusOf(id: string): Promise<string> {
  const [row] = await db().select({ status: messages.status }).from(messages).where(eq(messages.id, id));
  return row!.status;
}

/** The simulator's run options for `account`: no failures, no pauses, one heartbeat a minute. */
function runOptions(account: TestAccount, signal: AbortSignal, extra: Partial<RunOptions> = {}): RunOptions {
  return {
    phone: account.phone,
    failureRate: 0,
    delayMs: 0,
    waitSeconds: 2,
    limit: 10,
    heartbeatIntervalMs: 60_000,
    battery: 80,
    signal,
    ...extra,
  };
}

function simulatorFor(account: TestAccount): DeviceClient {
  return new DeviceClient({ baseUrl: BASE_URL, deviceKey: account.deviceKey, fetch: routedFetch });
}

describe('the device simulator', () => {
  it('runs claim → sent → delivered for a message an integrator sends, with heartbeats', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const controller = new AbortController();
    const running = runDevice(simulatorFor(account), runOptions(account, controller.signal));
    const sent = await sendFrom(account);
    await until(async () => ((await statusOf(sent.body.id)) === 'delivered' ? true : undefined));
    controller.abort();
    const stats = await running;
    expect(stats).toMatchObject({ claimed: 1, delivered: 1, failed: 0, heartbeats: 1 });
    const read = await call(readMessage, { params: { id: sent.body.id }, apiKey: account.apiKey });
    expect(read.body.history.map((h: { status: string }) => h.status)).toEqual([
      'queued',
      'dispatched',
      'sent',
      'delivered',
    ]);
    const [phone] = await db().select().from(phones).where(eq(phones.id, account.phoneId));
    expect(phone).toMatchObject({ status: 'online', battery: 80 });
  });

  it('drops a message it holds when the claim answer lists it in `cancel`, and reports it cancelled', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const controller = new AbortController();
    const running = runDevice(simulatorFor(account), runOptions(account, controller.signal, { holdMs: 60_000 }));
    const sent = await sendFrom(account);
    await until(async () => ((await statusOf(sent.body.id)) === 'dispatched' ? true : undefined));
    const cancelled = await call(cancelMessage, {
      method: 'POST',
      params: { id: sent.body.id },
      apiKey: account.apiKey,
    });
    expect(cancelled.status).toBe(202);
    await until(async () => ((await statusOf(sent.body.id)) === 'cancelled' ? true : undefined));
    controller.abort();
    expect(await running).toMatchObject({ claimed: 1, delivered: 0, cancelled: 1 });
  });

  it('with --sims 2 reports two SIMs, sends for SIM 2, and a third slot is refused', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const controller = new AbortController();
    const lines: string[] = [];
    const running = runDevice(
      simulatorFor(account),
      runOptions(account, controller.signal, { sims: 2, log: (line) => lines.push(line) }),
    );
    await until(async () => {
      const [device] = await db()
        .select({ simCards: devices.simCards })
        .from(devices)
        .where(eq(devices.id, account.deviceId));
      return device?.simCards?.length === 2 ? true : undefined;
    });
    const sent = await call(send, {
      body: { from: account.phone, to: testNumber(), content: 'second SIM', sim: 2 },
      apiKey: account.apiKey,
    });
    await until(async () => ((await statusOf(sent.body.id)) === 'delivered' ? true : undefined));
    controller.abort();
    await running;
    expect(lines).toContain(`delivered: ${sent.body.id} to ${sent.body.to} from SIM 2`);
    const third = await call(send, {
      body: { from: account.phone, to: testNumber(), content: 'x', sim: 3 },
      apiKey: account.apiKey,
    });
    expect(third.status).toBe(400);
  });

  it('reports failures at its failure rate', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const client = simulatorFor(account);
    const sent = await sendFrom(account);
    const [message] = await client.claim({ limit: 1, waitSeconds: 0 });
    expect(message?.id).toBe(sent.body.id);
    const outcome = await deliver(client, message!, {
      failureRate: 0.5,
      delayMs: 0,
      signal: new AbortController().signal,
      random: () => 0.2,
    });
    expect(outcome).toBe('failed');
    expect(await statusOf(sent.body.id)).toBe('failed');
  });

  it('tries a failed status report again with backoff until it lands, and gives up at once on a 4xx', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const sent = await sendFrom(account);
    // The `delivered` report meets an instance that is going away: no answer, then a 503, then the route.
    let failing = 2;
    const attempts: number[] = [];
    const flaky: Fetch = async (input, init) => {
      if (init?.body && String(init.body).includes('"delivered"')) {
        attempts.push(performance.now());
        if (failing-- === 2) throw new TypeError('fetch failed');
        if (failing === 0) return new Response(JSON.stringify({ code: 'SERVICE_UNAVAILABLE' }), { status: 503 });
      }
      return routedFetch(input, init);
    };
    const client = new DeviceClient({ baseUrl: BASE_URL, deviceKey: account.deviceKey, fetch: flaky });
    const [message] = await client.claim({ limit: 1, waitSeconds: 0 });
    const lines: string[] = [];
    const outcome = await deliver(client, message!, {
      failureRate: 0,
      delayMs: 0,
      signal: new AbortController().signal,
      retry: { attempts: 10, firstDelayMs: 40, maxDelayMs: 60 },
      log: (line) => lines.push(line),
    });
    expect(outcome).toBe('delivered');
    expect(await statusOf(sent.body.id)).toBe('delivered');
    expect(attempts).toHaveLength(3);
    // Backoff: 40 ms after the first failure, then twice that capped at 60.
    expect(attempts[1]! - attempts[0]!).toBeGreaterThanOrEqual(35);
    expect(attempts[2]! - attempts[1]!).toBeGreaterThanOrEqual(55);
    expect(lines.filter((line) => line.startsWith('report failed'))).toHaveLength(2);

    // A refusal is the server's word: not tried again.
    let refused = 0;
    const refusing = new DeviceClient({
      baseUrl: BASE_URL,
      deviceKey: account.deviceKey,
      fetch: async () => {
        refused++;
        return new Response(JSON.stringify({ code: 'INVALID_TRANSITION', detail: 'no' }), { status: 409 });
      },
    });
    await expect(
      deliver(refusing, message!, { failureRate: 0, delayMs: 0, signal: new AbortController().signal }),
    ).rejects.toMatchObject({ status: 409 });
    expect(refused).toBe(1);
  });

  it('injects an inbound SMS, once per device message id', async () => {
    const account = await createTestAccount(db());
    const client = simulatorFor(account);
    const first = await client.receive({ from: '+14155550123', content: 'Hello there', deviceMessageId: 'sim-1' });
    const again = await client.receive({ from: '+14155550123', content: 'Hello there', deviceMessageId: 'sim-1' });
    expect(first).toMatchObject({ status: 'received', to: account.phone });
    expect(again.id).toBe(first.id);
  });

  it('surfaces API errors with their code', async () => {
    const client = new DeviceClient({ baseUrl: BASE_URL, deviceKey: `dk_${'x'.repeat(40)}`, fetch: routedFetch });
    await expect(client.claim({ limit: 1, waitSeconds: 0 })).rejects.toMatchObject({
      status: 401,
      code: 'UNAUTHENTICATED',
    });
  });

  it('activates a phone end to end from the dev inbox, then sends with the key it created', async () => {
    const phone = testNumber();
    const client = new DeviceClient({ baseUrl: BASE_URL, fetch: routedFetch });
    const activation = await activateDevice(client, {
      phone,
      email: `sim-${crypto.randomUUID()}@example.test`,
      apiKeyName: 'simulator',
    });
    expect(activation.deviceKey).toMatch(/^dk_/);
    expect(activation.apiKey).toMatch(/^sk_/);
    const sent = await sendFrom({ apiKey: activation.apiKey!, phone });
    expect(sent.status).toBe(201);
    const claimed = await client.claim({ limit: 5, waitSeconds: 0 });
    expect(claimed.map((m) => m.id)).toEqual([sent.body.id]);
  });
});
