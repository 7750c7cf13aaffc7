import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { activatePhone, checkPage as check, exited, navigate, signIn, watchedDeviceCli } from './helpers';

test('a real phone: pair the SMSGate app by code, prove its SIM, send and receive through it', async ({
  page,
  request,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const email = `app-${Date.now()}@example.test`;
  const { phone, apiKey } = await activatePhone(baseURL!, email);
  const headers = { 'x-api-key': apiKey };
  const state = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-app-')), 'app.json');
  const common = ['--base-url', baseURL!, '--state', state];

  await signIn(page, baseURL!, email);
  await navigate(page, 'Phones');
  await page.getByRole('link', { name: phone, exact: true }).click();
  await expect(page.getByRole('heading', { name: phone })).toBeVisible();
  const phoneId = page.url().split('/').pop();
  await check(page, 'phone');

  // The pairing code, as the person reads it off the screen.
  const connect = page.getByRole('region', { name: 'Connect an Android phone' });
  await connect.getByRole('button', { name: 'Get a pairing code' }).click();
  const shown = await connect.getByTestId('pairing-code').textContent();
  const code = shown?.replace(/\s/g, '') ?? '';
  expect(code).toMatch(/^\d{8}$/);
  await expect(connect.getByTestId('server-url')).toContainText('/api/mobile/v1');
  await check(page, 'phone-pairing');

  const app = watchedDeviceCli([
    ...common,
    'run',
    '--protocol',
    'smsgate',
    '--phone',
    phone,
    '--code',
    code,
    '--delay-ms',
    '50',
  ]);
  try {
    // The app signs in: the page shows it connected, live.
    await expect(connect.getByText(/is connected/)).toBeVisible({ timeout: 20_000 });
    await expect(page.getByRole('region', { name: 'Devices' })).toContainText('SMSGate app');
    // Its loopback SMS proves the SIM (the simulator's own verification no longer counts: pairing reset it).
    await expect
      .poll(
        async () => {
          const devices = await (await request.get(`/api/v1/phones/${phoneId}/devices`, { headers })).json();
          const current = devices.data.find((d: { current: boolean }) => d.current);
          const phoneNow = await (await request.get(`/api/v1/phones/${phoneId}`, { headers })).json();
          return `${current?.kind} ${phoneNow.sim_verification}`;
        },
        { timeout: 20_000 },
      )
      .toBe('app verified');
    await expect(page.getByRole('heading', { name: phone }).locator('..').getByText('SIM verified')).toBeVisible();
    await check(page, 'phone-connected');

    // Compose from the dashboard: the message goes out through the app and is delivered.
    await navigate(page, 'Messages');
    await page.getByLabel('From (your phone)').selectOption(phone);
    await page.getByLabel('To', { exact: true }).fill('+14155550123');
    await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Hello through the SMSGate app');
    await page.getByRole('button', { name: 'Send' }).click();
    const row = page.getByRole('row', { name: /Hello through the SMSGate app/ });
    await expect(async () => {
      await page.reload();
      await expect(row.getByRole('cell', { name: 'delivered', exact: true })).toBeVisible({ timeout: 1000 });
    }).toPass({ timeout: 30_000 });

    // A reply arrives on the phone and shows as an inbound message.
    const reply = watchedDeviceCli([
      ...common,
      'inject',
      '--protocol',
      'smsgate',
      '--phone',
      phone,
      '--from',
      '+14155550123',
      '--text',
      'Got it, thanks!',
    ]);
    expect(await exited(reply.child), reply.output()).toBe(0);
    const inbound = page.getByRole('row', { name: /Got it, thanks!/ });
    await expect(async () => {
      await page.reload();
      await expect(inbound.getByRole('cell', { name: 'received', exact: true })).toBeVisible({ timeout: 1000 });
    }).toPass({ timeout: 15_000 });
  } finally {
    app.child.kill('SIGTERM');
    await exited(app.child);
  }
  expect(app.output()).not.toMatch(/error:/);
});
