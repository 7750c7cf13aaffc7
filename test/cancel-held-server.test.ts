import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { activateDevice } from '@/tools/device-sim/activate';
import { DeviceClient } from '@/tools/device-sim/client';
import { SmsGateClient } from '@/tools/device-sim/smsgate-client';
import { runSmsGateApp, type SmsGateRunOptions } from '@/tools/device-sim/smsgate-run';
import { until } from './poll';
import { built, type Running, startServer } from './start-server';

/**
 * The journey against `npm start`'s real server: a simulated SMSGate app (tools/device-sim, playing
 * the app's GatewayService/EventsReceiver as at capcom6/android-sms-gateway 0cdc5d8) holds a message
 * it pulled; the account cancels it through the API; the answer is 202 `cancelling`, the app is told
 * (`MessageCancelled` over its event stream, or `Cancelling` on its pull), drops it and PATCHes
 * `Cancelled`, and the message ends `cancelled` with its credit back. Needs a build
 * (test/start-server.ts).
 */

let server: Running | undefined;
let baseUrl = '';

beforeAll(async () => {
  if (!built) return;
  server = await startServer({ API_KEY_RATE_LIMIT: '0' });
  baseUrl = server.baseUrl;
}, 90_000);

afterAll(async () => {
  if (!server) return;
  server.child.kill('SIGTERM');
  await server.exited;
});

async function api(apiKey: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${baseUrl}${path}`, {
    method,
    headers: { 'x-api-key': apiKey, ...(body ? { 'content-type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  return { status: res.status, body: (await res.json().catch(() => null)) as Record<string, never> };
}

function runApp(client: SmsGateClient, phone: string, overrides: Partial<SmsGateRunOptions> = {}) {
  const controller = new AbortController();
  const lines: string[] = [];
  const running = runSmsGateApp(client, {
    phone,
    failureRate: 0,
    delayMs: 5,
    battery: 90,
    retryMs: 100,
    signal: controller.signal,
    log: (line) => lines.push(line),
    ...overrides,
  });
  return {
    lines,
    stop: async () => {
      controller.abort();
      return running;
    },
  };
}

describe.runIf(built)('cancelling a message a simulated SMSGate app holds (npm start)', () => {
  it('202 cancelling → the app is told and drops it → cancelled, refunded', { timeout: 120_000 }, async () => {
    const phone = '+14155557301';
    const activation = await activateDevice(new DeviceClient({ baseUrl }), {
      phone,
      email: `cancel-held-${process.pid}@example.test`,
      apiKeyName: 'cancel',
    });
    const apiKey = activation.apiKey!;
    const phones = await api(apiKey, 'GET', '/api/v1/phones');
    const phoneId = (phones.body.data as unknown as { id: string }[])[0]!.id;
    const pairing = await api(apiKey, 'POST', `/api/v1/phones/${phoneId}/pairing-code`);
    expect(pairing.status).toBe(201);
    const client = new SmsGateClient({ baseUrl: pairing.body.server_url as unknown as string });
    await client.register({
      code: pairing.body.code as unknown as string,
      name: 'Google/sdk_gphone64',
      simCards: [{ slotIndex: 0, phoneNumber: phone, carrierName: 'Test Mobile', iccid: '8901260123456789012' }],
    });
    // Its SIM check comes back by loopback; then the same app keeps what it pulls Pending a minute.
    const first = runApp(client, phone);
    await until(
      async () =>
        ((await api(apiKey, 'GET', `/api/v1/phones/${phoneId}`)).body.sim_verification === 'verified') as boolean,
      { timeoutMs: 30_000, intervalMs: 100 },
    );
    await first.stop();
    const app = runApp(client, phone, { holdMs: 60_000 });
    try {
      const before = (await api(apiKey, 'GET', '/api/v1/credits/balance')).body.total as unknown as number;
      const sent = await api(apiKey, 'POST', '/api/v1/messages', {
        from: phone,
        to: '+14155557399',
        content: 'stop me',
      });
      expect(sent.status).toBe(201);
      const id = sent.body.id as unknown as string;
      await until(async () => (await api(apiKey, 'GET', `/api/v1/messages/${id}`)).body.status === 'dispatched', {
        timeoutMs: 30_000,
        intervalMs: 100,
      });

      const cancelled = await api(apiKey, 'POST', `/api/v1/messages/${id}/cancel`);
      expect(cancelled.status).toBe(202);
      expect(cancelled.body.status).toBe('cancelling');

      const message = await until(
        async () => {
          const read = await api(apiKey, 'GET', `/api/v1/messages/${id}`);
          return read.body.status === 'cancelled' ? read.body : undefined;
        },
        { timeoutMs: 30_000, intervalMs: 100 },
      );
      expect((message.history as unknown as { status: string }[]).map((entry) => entry.status)).toEqual([
        'queued',
        'dispatched',
        'cancelling',
        'cancelled',
      ]);
      expect(app.lines).toContain(`cancelled: ${id}`);
      expect((await api(apiKey, 'GET', '/api/v1/credits/balance')).body.total).toBe(before);
    } finally {
      const stats = await app.stop();
      expect(stats.cancelled).toBe(1);
      expect(stats.delivered).toBe(0);
    }
  });
});
