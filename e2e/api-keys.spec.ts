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

test('Twilio compatibility: the Auth Token is shown once, opens the Twilio API, and rotating replaces it', async ({
  page,
  request,
  baseURL,
}) => {
  test.setTimeout(60_000);
  const email = `twilio-${Date.now()}@example.test`;
  await activatePhone(baseURL!, email);
  await signIn(page, baseURL!, email);
  await navigate(page, 'API keys');

  const section = page.getByRole('region', { name: 'Twilio compatibility' });
  const accountSid = (await section.locator('dd').first().textContent())?.trim() ?? '';
  expect(accountSid).toMatch(/^AC[0-9a-f]{32}$/);
  await expect(page.getByText('Not created yet')).toBeVisible();
  await page.getByRole('button', { name: 'Create an Auth Token' }).click();
  const token = (await page.getByTestId('secret-value').textContent())?.trim() ?? '';
  expect(token).toMatch(/^[0-9a-f]{32}$/);
  await checkPage(page, 'twilio-token-created');
  await page.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByText(token)).toHaveCount(0);

  const basic = (secret: string) => ({
    authorization: `Basic ${Buffer.from(`${accountSid}:${secret}`).toString('base64')}`,
  });
  const account = await request.get(`/2010-04-01/Accounts/${accountSid}.json`, { headers: basic(token) });
  expect(account.status()).toBe(200);
  expect(await account.json()).toMatchObject({ sid: accountSid, status: 'active' });
  expect(account.headers()['x-content-type-options']).toBe('nosniff');

  await page.getByRole('button', { name: 'Rotate the Auth Token' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Create new token' }).click();
  await expect(page.getByTestId('secret-value')).toBeVisible();
  const refused = await request.get(`/2010-04-01/Accounts/${accountSid}/Messages.json`, { headers: basic(token) });
  expect(refused.status()).toBe(401);
  expect(await refused.json()).toMatchObject({ code: 20003, status: 401 });
  await page.getByRole('button', { name: 'Done' }).click();
  await checkPage(page, 'twilio-compatibility');
});
