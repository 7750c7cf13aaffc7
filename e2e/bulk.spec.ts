import { expect, test } from '@playwright/test';
import { DeviceClient } from '../tools/device-sim/client';
import { runDevice } from '../tools/device-sim/run';
import { activatePhone, checkPage as check, navigate, signIn } from './helpers';

test('bulk send: a CSV of 50 with 2 invalid rows is previewed with its cost, sent, and delivered', async ({
  page,
  request,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const email = `bulk-${Date.now()}@example.test`;
  const device = await activatePhone(baseURL!, email);
  const headers = { 'x-api-key': device.apiKey };
  // Pacing allows 60 a minute, so the simulated phone is handed all 48 at once.
  const phones = await (await request.get('/api/v1/phones', { headers })).json();
  const phoneId = phones.data[0].id as string;
  expect((await request.patch(`/api/v1/phones/${phoneId}`, { headers, data: { messages_per_minute: 60 } })).ok()).toBe(
    true,
  );

  const base = 14155553000 + (Date.now() % 900);
  const rows = Array.from({ length: 50 }, (_, i) => `Customer ${i},+${base + i}`);
  rows[10] = 'Broken,+1555';
  rows[20] = 'Nobody,hello';
  const csv = ['name,phone', ...rows].join('\n');

  await signIn(page, baseURL!, email);
  await navigate(page, 'Messages');
  await page.getByRole('link', { name: /bulk, CSV upload/ }).click();
  await page.getByLabel('Upload a CSV').check();
  await page.getByLabel(/CSV file with a header row/).setInputFiles({
    name: 'customers.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(csv),
  });
  await expect(page.getByLabel('Number column')).toHaveValue('1');
  await expect(page.getByText('50 recipient(s) · variables: {{name}}')).toBeVisible();
  await page.getByLabel('Message', { exact: true }).fill('Hello {{name}}, your order is ready.');
  await page.getByRole('button', { name: 'Preview cost' }).click();

  const invalid = page.getByRole('region', { name: 'Invalid rows' });
  await expect(invalid).toContainText('2 invalid row(s)');
  await expect(invalid).toContainText('Line 12');
  await expect(invalid).toContainText('Line 22');
  const preview = page.getByRole('region', { name: 'Preview' });
  await expect(preview.getByTestId('bulk-cost')).toContainText('48 message(s), 48 credit(s)');
  await expect(preview).toContainText('Hello Customer 0, your order is ready.');
  await check(page, 'bulk-preview');

  await preview.getByRole('button', { name: 'Send 48 message(s)' }).click();
  await expect(page).toHaveURL(/\/dashboard\/messages\/bulk\?bulk=/);
  await expect(page.getByTestId('bulk-done')).toContainText('of 48 finished');

  const controller = new AbortController();
  const running = runDevice(new DeviceClient({ baseUrl: baseURL!, deviceKey: device.deviceKey }), {
    phone: device.phone,
    failureRate: 0,
    delayMs: 0,
    waitSeconds: 5,
    limit: 50,
    heartbeatIntervalMs: 60_000,
    battery: 90,
    signal: controller.signal,
  });
  try {
    await expect(page.getByTestId('bulk-delivered')).toHaveText('48', { timeout: 60_000 });
  } finally {
    controller.abort();
    await running;
  }
  await expect(page.getByTestId('bulk-done')).toHaveText('48 of 48 finished · 48 delivered');
  await check(page, 'bulk-progress');

  // The overview counts them and draws the day's bar.
  await navigate(page, 'Overview');
  await expect(page.getByRole('link', { name: /Delivered today\s*48/ })).toBeVisible();
  await expect(page.getByTestId('volume-chart').locator('.recharts-bar-rectangle').first()).toBeVisible();
  await check(page, 'overview-volume');
});
