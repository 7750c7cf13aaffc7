import { expect, test } from '@playwright/test';
import { activatePhone, checkPage, navigate, signIn } from './helpers';

test('API keys: a new key is shown once and works, and once revoked the API refuses it', async ({
  page,
  request,
  baseURL,
}) => {
  test.setTimeout(60_000);
  const email = `keys-${Date.now()}@example.test`;
  await activatePhone(baseURL!, email);
  await signIn(page, baseURL!, email);
  await navigate(page, 'API keys');

  await page.getByLabel('New key name').fill('CI server');
  await page.getByRole('button', { name: 'Create key' }).click();
  const created = await page.getByTestId('secret-value').textContent();
  expect(created).toMatch(/^sk_[0-9A-Za-z]{40}$/);
  await checkPage(page, 'api-key-created');
  await page.getByRole('button', { name: 'Done' }).click();
  // Shown once: gone from the page, and the list has only its prefix.
  await expect(page.getByTestId('secret-value')).toHaveCount(0);
  await expect(page.getByText(created!)).toHaveCount(0);
  await expect(page.getByRole('cell', { name: created!.slice(0, 8), exact: false }).first()).toBeVisible();

  const usable = await request.get('/api/v1/phones', { headers: { 'x-api-key': created! } });
  expect(usable.status()).toBe(200);

  // Revoking asks first; cancelling keeps the key.
  await page.getByRole('button', { name: 'Revoke CI server' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
  expect((await request.get('/api/v1/phones', { headers: { 'x-api-key': created! } })).status()).toBe(200);

  await page.getByRole('button', { name: 'Revoke CI server' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
  await expect(page.getByRole('button', { name: 'Revoke CI server' })).toHaveCount(0);
  const revoked = await request.get('/api/v1/phones', { headers: { 'x-api-key': created! } });
  expect(revoked.status()).toBe(401);
  expect(revoked.headers()['content-type']).toContain('application/problem+json');
  await checkPage(page, 'api-keys');
});
