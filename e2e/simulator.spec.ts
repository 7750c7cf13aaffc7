import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { deviceCli, exitOf, uniqueNumber } from './helpers';

test('the device simulator activates a phone and delivers a message sent through the API', async ({
  request,
  baseURL,
}) => {
  test.setTimeout(90_000);
  const phone = uniqueNumber();
  const state = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-e2e-')), 'device.json');
  const common = ['--base-url', baseURL!, '--state', state];

  const registered = await exitOf(
    deviceCli([...common, 'register', '--phone', phone, '--email', `sim-${Date.now()}@example.test`]),
  );
  expect(registered.code, registered.output).toBe(0);
  const apiKey = registered.output.match(/sk_[0-9A-Za-z]+/)?.[0];
  expect(apiKey, registered.output).toBeTruthy();

  const runner = deviceCli([...common, 'run', '--phone', phone, '--delay-ms', '50', '--wait', '5']);
  try {
    const sent = await request.post('/api/v1/messages', {
      headers: { 'x-api-key': apiKey! },
      data: { from: phone, to: '+14155550123', content: 'Hello from the end-to-end test' },
    });
    expect(sent.status()).toBe(201);
    const { id } = (await sent.json()) as { id: string };

    await expect
      .poll(
        async () => {
          const res = await request.get(`/api/v1/messages/${id}`, { headers: { 'x-api-key': apiKey! } });
          return ((await res.json()) as { status: string }).status;
        },
        { timeout: 30_000, intervals: [200] },
      )
      .toBe('delivered');
    const message = await (await request.get(`/api/v1/messages/${id}`, { headers: { 'x-api-key': apiKey! } })).json();
    expect(message.history.map((h: { status: string }) => h.status)).toEqual([
      'queued',
      'dispatched',
      'sent',
      'delivered',
    ]);

    const phones = await (await request.get('/api/v1/phones', { headers: { 'x-api-key': apiKey! } })).json();
    expect(phones.data.find((p: { phone: string }) => p.phone === phone)).toMatchObject({ status: 'online' });
  } finally {
    runner.kill('SIGTERM');
  }
});
