import { expect, test } from '@playwright/test';
import { DeviceClient } from '../tools/device-sim/client';
import { runDevice } from '../tools/device-sim/run';
import { activatePhone, checkPage, navigate, signIn, uniqueNumber } from './helpers';

test('compose: From offers the online phone first, counts segments and credits as you type, and the message is seen reaching delivered', async ({
  page,
  request,
  baseURL,
}) => {
  test.setTimeout(90_000);
  const email = `compose-${Date.now()}@example.test`;
  const device = await activatePhone(baseURL!, email);
  const headers = { 'x-api-key': device.apiKey };
  // An offline number added first, and the activated phone online: the online one is offered first.
  expect(
    (await request.post('/api/v1/phones', { headers, data: { phone: uniqueNumber(), label: 'Spare' } })).status(),
  ).toBe(201);
  expect(
    (
      await request.post('/api/v1/heartbeats', {
        headers,
        data: { phone: device.phone, status: 'online', battery: 90 },
      })
    ).status(),
  ).toBeLessThan(300);

  await signIn(page, baseURL!, email);
  await navigate(page, 'Messages');
  const from = page.getByLabel('From (your phone)');
  await expect(from).toHaveValue(device.phone);
  await expect(from.locator('option').first()).toHaveText(device.phone);
  await expect(from.locator('option').nth(1)).toContainText('Spare');

  await page.getByLabel('To', { exact: true }).fill('+14155550123');
  const text = page.getByRole('textbox', { name: 'Message', exact: true });
  const count = page.getByTestId('segment-count');
  await text.fill('See you at 10');
  await expect(count).toHaveText('13 characters · GSM-7 · 1 segment · 1 credit');
  await text.fill('a'.repeat(161));
  await expect(count).toHaveText('161 characters · GSM-7 · 2 segments · 1 credit');
  await text.fill('See you at 10 ✓');
  await expect(count).toHaveText('15 UTF-16 units · UCS-2 · 1 segment · 1 credit');
  await checkPage(page, 'compose');
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.getByText('Message queued')).toBeVisible();

  // Its page follows it live: queued, then the simulated phone takes it and reports delivered.
  await page.getByRole('link', { name: 'See you at 10 ✓' }).click();
  const timeline = page.getByRole('region', { name: 'Timeline' });
  await expect(timeline.getByText('queued')).toBeVisible();
  const controller = new AbortController();
  const running = runDevice(new DeviceClient({ baseUrl: baseURL!, deviceKey: device.deviceKey }), {
    phone: device.phone,
    failureRate: 0,
    delayMs: 0,
    waitSeconds: 5,
    limit: 10,
    heartbeatIntervalMs: 60_000,
    battery: 90,
    signal: controller.signal,
  });
  try {
    await expect(timeline.getByText('delivered')).toBeVisible({ timeout: 30_000 });
  } finally {
    controller.abort();
    await running;
  }
  await expect(timeline.locator('li')).toHaveCount(4);
  await checkPage(page, 'message-delivered');
});
