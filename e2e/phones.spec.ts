import { expect, test } from '@playwright/test';
import { activatePhone, checkPage, navigate, signIn, uniqueNumber } from './helpers';

test('phones: add one and hit the duplicate, watch the battery live, rename and pace it, remove it knowing what fails', async ({
  page,
  request,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const email = `phones-${Date.now()}@example.test`;
  const device = await activatePhone(baseURL!, email);
  const headers = { 'x-api-key': device.apiKey };
  await signIn(page, baseURL!, email);
  await navigate(page, 'Phones');
  const phones = page.getByRole('region', { name: 'Phones' });
  await expect(phones.getByRole('cell', { name: device.phone, exact: true })).toBeVisible();

  // Adding the same number twice: the second is refused with the reason, and the list holds it once.
  const spare = uniqueNumber();
  for (let attempt = 0; attempt < 2; attempt += 1) {
    await page.getByLabel('Number (E.164)').fill(spare);
    await page.getByRole('button', { name: 'Add phone' }).click();
    await expect(phones.getByRole('cell', { name: spare, exact: true })).toBeVisible();
  }
  await expect(page.getByLabel('Number (E.164)')).toHaveAttribute('aria-invalid', 'true');
  await expect(phones.getByText(/already/i)).toBeVisible();
  await expect(phones.getByRole('cell', { name: spare, exact: true })).toHaveCount(1);
  await checkPage(page, 'phones');

  // Heartbeats: the list's gauge and relative time follow by themselves, the phone's page draws them.
  for (const battery of [81, 78]) {
    const beat = await request.post('/api/v1/heartbeats', {
      headers,
      data: { phone: device.phone, status: 'online', battery },
    });
    expect(beat.status()).toBeLessThan(300);
  }
  await expect(page.getByRole('meter', { name: `Battery of ${device.phone}` })).toHaveAttribute('value', '78', {
    timeout: 20_000,
  });
  await expect(
    page.getByRole('row', { name: new RegExp(device.phone.replace('+', '\\+')) }).locator('time'),
  ).toHaveText(/now|sec|min/);
  await page.getByRole('link', { name: device.phone, exact: true }).click();
  await expect(page.getByRole('heading', { level: 1, name: device.phone })).toBeVisible();
  await expect(page.getByTestId('battery-chart')).toHaveAttribute('data-points', '2');
  await expect(page.locator('[data-testid="battery-chart"] .recharts-line-dot')).toHaveCount(2);

  // Its messages: two queued sends show on its page.
  for (const to of ['+14155550101', '+14155550102']) {
    const sent = await request.post('/api/v1/messages', {
      headers,
      data: { from: device.phone, to, content: `Queued for ${to}` },
    });
    expect(sent.status()).toBe(201);
  }
  const messages = page.getByRole('region', { name: 'Messages' });
  await expect(messages.getByRole('link', { name: 'Queued for +14155550102' })).toBeVisible({ timeout: 20_000 });
  await expect(messages.getByRole('link', { name: 'Queued for +14155550101' })).toBeVisible();

  // Rename, a new group, and pacing: saved in one go, shown at once.
  const group = await request.post('/api/v1/phone-groups', { headers, data: { name: 'Front desk' } });
  expect(group.status()).toBe(201);
  await page.reload();
  const settings = page.getByRole('region', { name: 'Name, group, pacing and quotas' });
  await settings.getByLabel('Label').fill('Reception phone');
  await settings.getByLabel('Group').selectOption({ label: 'Front desk' });
  // Beyond the API's bound the form does not submit: the browser holds it at the field.
  const rate = settings.getByLabel('Messages per minute');
  await rate.fill('61');
  await settings.getByRole('button', { name: 'Save changes' }).click();
  expect(await rate.evaluate((input: HTMLInputElement) => input.validity.rangeOverflow)).toBe(true);
  await settings.getByLabel('Messages per minute').fill('12');
  await settings.getByLabel('Daily cap').fill('500');
  await settings.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByText('Phone saved')).toBeVisible();
  const details = page.getByRole('region', { name: 'Details' });
  await expect(details).toContainText('Reception phone');
  await expect(details).toContainText('Front desk');
  const saved = await (await request.get('/api/v1/phones', { headers })).json();
  expect(saved.data.find((p: { phone: string }) => p.phone === device.phone)).toMatchObject({
    label: 'Reception phone',
    messages_per_minute: 12,
    daily_cap: 500,
  });
  await checkPage(page, 'phone');

  // Removing it says first that its two unsent messages fail and are refunded.
  const before = await (await request.get('/api/v1/credits/balance', { headers })).json();
  await page.getByRole('button', { name: `Remove ${device.phone}` }).click();
  const dialog = page.getByRole('dialog', { name: `Remove ${device.phone}?` });
  await expect(dialog.getByTestId('unsent-notice')).toHaveText(
    '2 messages it has not sent yet will fail, and their credits go back to the groups they came from.',
  );
  await dialog.getByRole('button', { name: 'Remove phone' }).click();
  await expect(page).toHaveURL(/\/dashboard\/phones$/);
  await expect(page.getByRole('cell', { name: device.phone, exact: true })).toHaveCount(0);
  const after = await (await request.get('/api/v1/credits/balance', { headers })).json();
  expect(after.total).toBe(before.total + 2);
});
