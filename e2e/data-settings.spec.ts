import { expect, test } from '@playwright/test';
import { activatePhone, checkPage as check, signIn, uniqueNumber } from './helpers';

test('data settings: an account keeps its message text for fewer days, after confirming the purge', async ({
  page,
  request,
  baseURL,
}) => {
  test.setTimeout(90_000);
  const email = `data-${Date.now()}@example.test`;
  const device = await activatePhone(baseURL!, email);
  // A message the phone says it received three weeks ago.
  const old = await request.post('/api/v1/device/messages/received', {
    headers: { 'x-api-key': device.deviceKey },
    data: {
      from: uniqueNumber(),
      content: 'An old secret',
      received_at: new Date(Date.now() - 21 * 86_400_000).toISOString(),
    },
  });
  expect(old.status()).toBe(201);
  const oldId = (await old.json()).id as string;
  await signIn(page, baseURL!, email);

  await page.goto('/dashboard/settings');
  await page.getByRole('link', { name: 'Data: how long message text is kept' }).click();
  await expect(page.getByRole('heading', { name: 'Settings · Data' })).toBeVisible();
  const content = page.getByRole('region', { name: 'Message text' });
  await expect(content.getByText('kept forever')).toBeVisible();
  const instance = page.getByRole('region', { name: 'Kept by this instance' });
  await expect(instance).toContainText('Audit log');
  await expect(instance).toContainText('365 days');
  await check(page, 'data-settings');

  await content.getByLabel('Remove the text of this account’s messages sooner than the instance').check();
  await content.getByLabel('Days to keep message text').fill('14');
  await content.getByLabel('What happens to old text').selectOption('delete');
  await content.getByRole('button', { name: 'Save' }).click();
  const dialog = page.getByRole('dialog', { name: 'Remove message text for good?' });
  await expect(dialog).toContainText('older than 14 days is deleted');
  await check(page, 'data-settings-confirm');

  // Cancelling saves nothing.
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
  const unchanged = await request.get('/api/v1/settings/data', { headers: { 'x-api-key': device.apiKey } });
  expect((await unchanged.json()).account.content_days).toBeNull();

  await content.getByRole('button', { name: 'Save' }).click();
  await dialog.getByRole('button', { name: 'Save and remove' }).click();
  await expect(page.getByText('Data settings saved.')).toBeVisible();
  await expect(content.getByText('kept 14 days')).toBeVisible();
  const saved = await request.get('/api/v1/settings/data', { headers: { 'x-api-key': device.apiKey } });
  expect((await saved.json()).message_content).toEqual({ days: 14, mode: 'delete', hash_counterpart: false });

  // A field the API refuses is named at the field.
  await content.getByLabel('Days to keep message text').fill('0');
  await content.getByLabel('Days to keep message text').evaluate((input: HTMLInputElement) => {
    input.removeAttribute('min');
  });
  await content.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('dialog', { name: 'Remove message text for good?' })).toBeVisible();
  await page.getByRole('button', { name: 'Save and remove' }).click();
  await expect(content.getByText(/at least 1|>=1|too small/i)).toBeVisible();
  await check(page, 'data-settings-saved');

  // A phone's report of when it received a message does not age it: retention counts from the
  // server's receipt (docs/security.md), so the back-dated message keeps its text for now.
  // test/retention.test.ts covers the sweep's purge and this rule.
  const kept = await request.get(`/api/v1/messages/${oldId}`, { headers: { 'x-api-key': device.apiKey } });
  expect(await kept.json()).toMatchObject({ content: 'An old secret', content_purged_at: null });
  await page.goto(`/dashboard/messages/${oldId}`);
  await expect(page.getByText('An old secret')).toBeVisible();
  await check(page, 'message-kept');
});
