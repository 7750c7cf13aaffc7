import { expect, test } from '@playwright/test';
import { activatePhone, checkPage as check, navigate, signIn } from './helpers';

test('message control: quiet hours, retries and allowed countries set in Settings → Sending; search and cancel a queued message', async ({
  page,
  request,
  baseURL,
}) => {
  test.setTimeout(90_000);
  const email = `control-${Date.now()}@example.test`;
  const device = await activatePhone(baseURL!, email);
  const headers = { 'x-api-key': device.apiKey };

  await signIn(page, baseURL!, email);
  await navigate(page, 'Settings');
  await page.getByRole('link', { name: /Sending: quiet hours/ }).click();
  await page.getByLabel(/Hand normal-priority messages/).check();
  await page.getByLabel('Time zone (IANA name)').fill('UTC');
  const start = (new Date().getUTCHours() + 2) % 24;
  await page.getByLabel('From', { exact: true }).fill(`${String(start).padStart(2, '0')}:00`);
  await page.getByLabel('until', { exact: true }).fill(`${String(start).padStart(2, '0')}:30`);
  for (const day of ['sat', 'sun']) await page.getByLabel(day, { exact: true }).check();
  await page.getByLabel(/Tries per message/).fill('3');
  await page.getByRole('button', { name: 'Only my phones’ countries' }).click();
  await expect(page.getByLabel(/Country codes/)).toHaveValue('US');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Saved.')).toBeVisible();
  await check(page, 'settings-sending');

  const settings = await (await request.get('/api/v1/settings/sending', { headers })).json();
  expect(settings).toMatchObject({ max_attempts: 3, allowed_countries: ['US'], send_window: { time_zone: 'UTC' } });
  const abroad = await request.post('/api/v1/messages', {
    headers,
    data: { from: device.phone, to: '+33612345678', content: 'Bonjour' },
  });
  expect(abroad.status()).toBe(422);
  const sent = await request.post('/api/v1/messages', {
    headers,
    data: { from: device.phone, to: '+14155550142', content: 'Your parcel is waiting' },
  });
  expect(sent.status()).toBe(201);

  await navigate(page, 'Messages');
  await page.getByRole('searchbox').fill('parcel');
  await expect(page).toHaveURL(/\?q=parcel/);
  const row = page.getByRole('row', { name: /Your parcel is waiting/ });
  await expect(row).toBeVisible();
  await check(page, 'messages-search');
  // Words by default; a part of a word once "Any part of a word" is ticked.
  await page.getByRole('searchbox').fill('parc');
  await expect(page).toHaveURL(/\?q=parc(&|$)/);
  await expect(row).toHaveCount(0);
  await page.getByRole('checkbox', { name: 'Any part of a word' }).check();
  await expect(row).toBeVisible();
  await row.getByRole('button', { name: 'Cancel message to +14155550142' }).click();
  const dialog = page.getByRole('dialog', { name: 'Cancel the message to +14155550142?' });
  await dialog.getByRole('button', { name: 'Cancel message' }).click();
  await expect(row.getByRole('cell', { name: 'cancelled' })).toBeVisible();
  const message = await (await request.get(`/api/v1/messages/${(await sent.json()).id}`, { headers })).json();
  expect(message.status).toBe('cancelled');

  // The status-callback secret: created after a confirmation, shown once.
  await navigate(page, 'Webhooks');
  await page.getByRole('button', { name: 'Create or rotate the callback secret' }).click();
  await page
    .getByRole('dialog', { name: 'Create a new callback secret?' })
    .getByRole('button', { name: 'Create secret' })
    .click();
  await expect(page.getByTestId('secret-value')).toHaveText(/^whsec_/);
  await check(page, 'webhooks-callback-secret');
});

test('cancel a message a phone holds from the dashboard: cancelling until the phone drops it, then cancelled', async ({
  page,
  request,
  baseURL,
}) => {
  test.setTimeout(90_000);
  const email = `held-${Date.now()}@example.test`;
  const device = await activatePhone(baseURL!, email);
  const headers = { 'x-api-key': device.apiKey };
  const sent = await request.post('/api/v1/messages', {
    headers,
    data: { from: device.phone, to: '+14155550143', content: 'Held by the phone' },
  });
  expect(sent.status()).toBe(201);
  const { id } = await sent.json();
  // The phone takes it (the device API's claim, as the simulator does).
  const claimed = await request.post('/api/v1/device/outbox/claim', {
    headers: { 'x-api-key': device.deviceKey },
    data: { limit: 10 },
  });
  expect((await claimed.json()).data.map((m: { id: string }) => m.id)).toContain(id);

  await signIn(page, baseURL!, email);
  await navigate(page, 'Messages');
  const row = page.getByRole('row', { name: /Held by the phone/ });
  await expect(row.getByRole('cell', { name: 'dispatched' })).toBeVisible();
  await row.getByRole('button', { name: 'Cancel message to +14155550143' }).click();
  const dialog = page.getByRole('dialog', { name: 'Cancel the message to +14155550143?' });
  await expect(dialog).toContainText('the phone is told to drop it');
  await dialog.getByRole('button', { name: 'Cancel message' }).click();
  await expect(row.getByRole('cell', { name: 'cancelling' })).toBeVisible();
  await check(page, 'messages-cancelling');

  // The phone finds it in its next claim answer's `cancel` and reports it dropped.
  const next = await request.post('/api/v1/device/outbox/claim', {
    headers: { 'x-api-key': device.deviceKey },
    data: { limit: 10 },
  });
  expect((await next.json()).cancel).toEqual([id]);
  const reported = await request.post(`/api/v1/device/messages/${id}/status`, {
    headers: { 'x-api-key': device.deviceKey },
    data: { status: 'cancelled' },
  });
  expect(reported.status()).toBe(200);
  await page.reload();
  await expect(
    page.getByRole('row', { name: /Held by the phone/ }).getByRole('cell', { name: 'cancelled' }),
  ).toBeVisible();
});
