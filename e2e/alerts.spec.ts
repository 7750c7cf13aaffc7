import { expect, test } from '@playwright/test';
import { activatePhone, checkPage, signIn } from './helpers';

test('alerts: a low battery shows on the Overview with a link to its phone, and turning the alert off in Settings → Alerts resolves it', async ({
  page,
  request,
  baseURL,
}) => {
  test.setTimeout(90_000);
  const email = `alerts-${Date.now()}@example.test`;
  const device = await activatePhone(baseURL!, email);
  const headers = { 'x-api-key': device.apiKey };
  const beat = await request.post('/api/v1/heartbeats', {
    headers,
    data: { phone: device.phone, status: 'online', battery: 5 },
  });
  expect(beat.status()).toBe(200);
  const phoneId = (await beat.json()).id as string;
  const openAlerts = async () =>
    ((await (await request.get('/api/v1/alerts?state=open', { headers })).json()).data as unknown[]).length;
  await expect.poll(openAlerts, { timeout: 20_000, message: 'the battery alert is raised' }).toBe(1);

  await signIn(page, baseURL!, email);
  const panel = page.getByRole('region', { name: 'Open alerts' });
  await expect(panel.getByText(`Phone ${device.phone}'s battery is at 5 %`)).toBeVisible();
  await expect(panel.getByRole('link', { name: `Open the phone: ${device.phone}` })).toHaveAttribute(
    'href',
    `/dashboard/phones/${phoneId}`,
  );
  await checkPage(page, 'overview-open-alerts');

  await page.goto('/dashboard/settings');
  await page.getByRole('link', { name: /^Alerts:/ }).click();
  await expect(page.getByRole('heading', { name: 'Settings · Alerts' })).toBeVisible();
  const form = page.getByRole('region', { name: 'Alerts' });
  await expect(form.getByLabel('Phone offline for more than (minutes)')).toHaveValue('15');
  await expect(form.getByLabel('A group’s credit balance below (credits)')).toBeDisabled();
  await checkPage(page, 'settings-alerts');

  await form.getByLabel('Phone offline for more than (minutes)').fill('0');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(form.getByText(/>=\s*1|at least 1|too small/i)).toBeVisible();
  await checkPage(page, 'settings-alerts-error');

  await form.getByLabel('Phone offline for more than (minutes)').fill('30');
  await form.getByRole('checkbox', { name: 'Phone battery below…' }).uncheck();
  await form.getByRole('checkbox', { name: 'A group’s credit balance below…' }).check();
  await form.getByLabel('A group’s credit balance below (credits)').fill('5');
  await form.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('Alert settings saved')).toBeVisible();
  const saved = await (await request.get('/api/v1/settings/alerts', { headers })).json();
  expect(saved).toMatchObject({ phone_offline_minutes: 30, battery_below_percent: null, group_balance_below: 5 });

  await expect.poll(openAlerts, { timeout: 20_000, message: 'the battery alert resolves' }).toBe(0);
  await page.goto('/dashboard');
  await expect(page.getByTestId('no-open-alerts')).toBeVisible();
  await checkPage(page, 'overview-no-alerts');
});
