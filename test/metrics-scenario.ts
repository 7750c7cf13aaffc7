import { expect } from 'vitest';
import { activateDevice } from '@/tools/device-sim/activate';
import { DeviceClient } from '@/tools/device-sim/client';
import { eventually, type Receiver } from './fixtures/tls/receiver';

/**
 * A short day of a running server, for the tests that read its /metrics: a phone is activated and
 * sends heartbeats, a message is sent, handed to the phone and delivered, two SMS come in (one a
 * STOP), and a webhook whose receiver answers 500 fails its first delivery. `receiver` must be
 * trusted by the server (NODE_EXTRA_CA_CERTS).
 */
export async function runMetricsScenario(baseUrl: string, receiver: Receiver): Promise<void> {
  receiver.respond(() => ({ status: 500, body: 'down' }));
  const device = new DeviceClient({ baseUrl });
  const phone = '+14155550170';
  const activation = await activateDevice(device, { phone, email: 'metrics@example.test', apiKeyName: 'metrics' });
  const asAccount = { 'x-api-key': activation.apiKey!, 'content-type': 'application/json' };
  await device.heartbeat(phone, 80);

  const webhook = await fetch(`${baseUrl}/api/v1/webhooks`, {
    method: 'POST',
    headers: asAccount,
    body: JSON.stringify({ url: receiver.url('/metrics-scenario'), events: ['message.received'] }),
  });
  expect(webhook.status).toBe(201);

  const sent = await fetch(`${baseUrl}/api/v1/messages`, {
    method: 'POST',
    headers: asAccount,
    body: JSON.stringify({ from: phone, to: '+14155550171', content: 'metrics scenario' }),
  });
  expect(sent.status).toBe(201);
  const [claimed] = await device.claim({ limit: 1, waitSeconds: 0 });
  expect(claimed).toBeDefined();
  await device.reportStatus(claimed!.id, 'sent');
  await device.reportStatus(claimed!.id, 'delivered');

  await device.receive({ from: '+14155550172', content: 'hello' });
  await device.receive({ from: '+14155550173', content: 'STOP' });
  await eventually(() => receiver.hitsFor('/metrics-scenario').length > 0, 30_000);
}

/** The METRICS_TOKEN the tests start the server with, and scrape with as Prometheus would. */
export const METRICS_TOKEN = 'metrics-test-token-of-at-least-32-characters';

/** /metrics as Prometheus reads it, with the Bearer token. */
export async function scrape(baseUrl: string): Promise<string> {
  const res = await fetch(`${baseUrl}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect(res.status).toBe(200);
  return res.text();
}
