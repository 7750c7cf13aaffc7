import { expect, test } from '@playwright/test';
import { DeviceClient } from '../tools/device-sim/client';
import { activatePhone, checkPage as check, navigate, signIn, uniqueNumber } from './helpers';

test('opt-outs: a STOP texted to a phone shows up, sends to it are refused, and a number is added and removed by hand', async ({
  page,
  request,
  baseURL,
}) => {
  test.setTimeout(90_000);
  const email = `optout-${Date.now()}@example.test`;
  const device = await activatePhone(baseURL!, email);
  const customer = uniqueNumber();
  const phone = new DeviceClient({ baseUrl: baseURL!, deviceKey: device.deviceKey });
  await phone.receive({ from: customer, content: 'STOP' });
  const refused = await request.post('/api/v1/messages', {
    headers: { 'x-api-key': device.apiKey },
    data: { from: device.phone, to: customer, content: 'Sale!' },
  });
  expect(refused.status()).toBe(422);
  expect((await refused.json()).code).toBe('RECIPIENT_OPTED_OUT');

  await signIn(page, baseURL!, email);
  await navigate(page, 'Opt-outs');
  const region = page.getByRole('region', { name: 'Opted-out numbers' });
  const texted = region.getByRole('row', { name: new RegExp(customer.replace('+', '\\+')) });
  await expect(texted).toContainText('Texted a stop word');
  await check(page, 'opt-outs');

  const byHand = uniqueNumber();
  await page.getByLabel(/Opt a number out/).fill(byHand);
  await region.getByRole('button', { name: 'Add' }).click();
  await expect(region.getByRole('row', { name: new RegExp(byHand.replace('+', '\\+')) })).toContainText(
    'Added by hand',
  );

  await page.getByLabel(/Opt a number out/).fill('12');
  await region.getByRole('button', { name: 'Add' }).click();
  await expect(region.getByText(/E\.164|phone number/i).last()).toBeVisible();

  await region.getByRole('button', { name: `Remove opt-out ${customer}` }).click();
  const dialog = page.getByRole('dialog', { name: `Text ${customer} again?` });
  await expect(dialog).toBeVisible();
  await dialog.getByRole('button', { name: 'Remove opt-out' }).click();
  await expect(texted).toHaveCount(0);
  const allowed = await request.post('/api/v1/messages', {
    headers: { 'x-api-key': device.apiKey },
    data: { from: device.phone, to: customer, content: 'Welcome back' },
  });
  expect(allowed.status()).toBe(201);

  await page.getByLabel('Text sent back when a number opts out').fill('You are unsubscribed.');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Saved: the reply is on.')).toBeVisible();
  await check(page, 'opt-outs-filled');
});
