import { expect, test } from '@playwright/test';
import { activatePhone, checkPage, signIn } from './helpers';

test('not found: an unknown page, phone, message or delivery answers in the app’s style with a way back', async ({
  page,
  baseURL,
}) => {
  test.setTimeout(60_000);
  const email = `lost-${Date.now()}@example.test`;
  await activatePhone(baseURL!, email);
  await signIn(page, baseURL!, email);
  const nobody = crypto.randomUUID();

  const missing = await page.goto('/dashboard/no-such-screen');
  expect(missing?.status()).toBe(404);
  await expect(page.getByRole('heading', { level: 1, name: 'This page does not exist' })).toBeVisible();
  await checkPage(page, 'not-found');
  await page.getByRole('link', { name: 'Back to the dashboard' }).click();
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();

  await page.goto(`/dashboard/phones/${nobody}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Phone not found' })).toBeVisible();
  await expect(page.getByRole('link', { name: 'Back to phones' })).toBeVisible();
  await checkPage(page, 'phone-not-found');

  await page.goto(`/dashboard/settings/webhooks/${nobody}/deliveries/${nobody}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Delivery not found' })).toBeVisible();

  await page.goto(`/dashboard/messages/${nobody}`);
  await expect(page.getByRole('heading', { level: 1, name: 'Message not found' })).toBeVisible();
});
