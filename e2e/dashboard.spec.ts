import { expect, test } from '@playwright/test';
import { activatePhone, checkPage, navigate, signIn } from './helpers';

test('an account holder signs in by emailed code and manages phones, groups, credits, messages, keys and webhooks', async ({
  page,
  request,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const email = `owner-${Date.now()}@example.test`;
  const device = await activatePhone(baseURL!, email);

  await page.goto('/dashboard');
  await expect(page).toHaveURL(/\/sign-in$/);
  await signIn(page, baseURL!, email);
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();
  await checkPage(page, 'overview');

  // Phones: the activated phone is listed with its device.
  await navigate(page, 'Phones');
  await expect(page.getByRole('cell', { name: device.phone, exact: true })).toBeVisible();
  await checkPage(page, 'phones');

  // Its page draws the battery from its heartbeats.
  for (const battery of [81, 78]) {
    const beat = await request.post('/api/v1/heartbeats', {
      headers: { 'x-api-key': device.apiKey },
      data: { phone: device.phone, status: 'online', battery },
    });
    expect(beat.status()).toBeLessThan(300);
  }
  // The list picks the heartbeats up by itself: a gauge and a relative time.
  await expect(page.getByRole('meter', { name: `Battery of ${device.phone}` })).toHaveAttribute('value', '78', {
    timeout: 20_000,
  });
  await expect(
    page.getByRole('row', { name: new RegExp(device.phone.replace('+', '\\+')) }).locator('time'),
  ).toHaveText(/now|sec|min/);
  await page.getByRole('link', { name: device.phone, exact: true }).click();
  await expect(page.getByTestId('battery-chart')).toHaveAttribute('data-points', '2');
  await expect(page.locator('[data-testid="battery-chart"] .recharts-line-dot')).toHaveCount(2);
  await checkPage(page, 'phone');

  // Groups and credits: create a group, move credits into it.
  await navigate(page, 'Groups');
  await page.getByLabel('New group name').fill('Marketing');
  await page.getByRole('button', { name: 'Create group' }).click();
  await expect(
    page.getByRole('region', { name: 'Phone groups' }).getByRole('cell', { name: /^Marketing/ }),
  ).toBeVisible();
  await checkPage(page, 'groups');
  await navigate(page, 'Credits');
  await expect(page.getByRole('region', { name: 'Credits' })).toContainText('across 2 group(s)');
  await page.getByLabel('To group').selectOption({ label: 'Marketing (0)' });
  await page.getByLabel('Amount').fill('25');
  await expect(page.getByTestId('transfer-preview')).toContainText('Default 100 → 75');
  await expect(page.getByTestId('transfer-preview')).toContainText('Marketing 0 → 25');
  await page.getByRole('button', { name: 'Transfer' }).click();
  await expect(page.getByRole('cell', { name: 'transfer in' })).toBeVisible();
  await expect(page.getByTestId('credits-total')).toHaveText('100');

  // A refused transfer shows the API's reason.
  await page.getByLabel('To group').selectOption({ label: 'Marketing (25)' });
  await page.getByLabel('Amount').fill('1000');
  await expect(page.getByTestId('transfer-preview')).toContainText('does not have that many credits');
  await page.getByRole('button', { name: 'Transfer' }).click();
  // Scoped to the credits region: Next's route announcer is an alert too (shared/notes/stack.md).
  await expect(page.getByRole('region', { name: 'Credits' }).getByRole('alert')).toContainText('credit');
  await checkPage(page, 'credits');

  // Messages: send one from the account's phone.
  await navigate(page, 'Messages');
  await expect(page.getByLabel('From (your phone)')).toHaveValue(device.phone);
  await page.getByLabel('To', { exact: true }).fill('+14155550123');
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Sent from the dashboard');
  await expect(page.getByTestId('segment-count')).toContainText('GSM-7 · 1 segment');
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Sent from the dashboard ✓');
  await expect(page.getByTestId('segment-count')).toContainText('UCS-2 · 1 segment');
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Sent from the dashboard');
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.getByRole('cell', { name: 'Sent from the dashboard' })).toBeVisible();
  await expect(page.getByText('Message queued')).toBeVisible();
  await checkPage(page, 'messages');
  await page.getByRole('link', { name: 'Sent from the dashboard' }).click();
  await expect(page.getByRole('region', { name: 'Timeline' }).getByText('queued')).toBeVisible();
  await checkPage(page, 'message');

  // Settings → API keys: create one (shown once), then revoke it after confirming.
  await navigate(page, 'API keys');
  await page.getByLabel('New key name').fill('CI server');
  await page.getByRole('button', { name: 'Create key' }).click();
  const created = await page.getByTestId('secret-value').textContent();
  expect(created).toMatch(/^sk_[0-9A-Za-z]{40}$/);
  await page.getByRole('button', { name: 'Done' }).click();
  const usable = await request.get('/api/v1/phones', { headers: { 'x-api-key': created! } });
  expect(usable.status()).toBe(200);
  await page.getByRole('button', { name: 'Revoke CI server' }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click();
  await expect(page.getByRole('button', { name: 'Revoke CI server' })).toHaveCount(0);
  const revoked = await request.get('/api/v1/phones', { headers: { 'x-api-key': created! } });
  expect(revoked.status()).toBe(401);
  await checkPage(page, 'api-keys');

  // Settings → Webhooks: a bad URL is refused with the field named, a good one shows its secret.
  await navigate(page, 'Webhooks');
  await page.getByLabel('URL (https)').fill('http://hooks.example.test/simgate');
  await page.getByRole('checkbox', { name: /message\.received/ }).check();
  await page.getByRole('button', { name: 'Create webhook' }).click();
  await expect(page.getByText(/https/i).first()).toBeVisible();
  await page.getByLabel('URL (https)').fill('https://hooks.example.test/simgate');
  await page.getByRole('button', { name: 'Create webhook' }).click();
  await expect(page.getByTestId('secret-value')).toHaveText(/^whsec_/);
  await page.getByRole('button', { name: 'Done' }).click();
  await expect(page.getByRole('button', { name: 'Send test of https://hooks.example.test/simgate' })).toBeVisible();
  await checkPage(page, 'webhooks');
  await navigate(page, 'Settings');
  await checkPage(page, 'settings');

  // At phone width the navigation folds behind a menu that still reaches every screen.
  await page.setViewportSize({ width: 390, height: 844 });
  await navigate(page, 'Groups');
  await expect(page).toHaveURL(/\/dashboard\/groups$/);
  await expect(page.getByRole('button', { name: /^Menu/ })).toHaveAttribute('aria-expanded', 'false');
  await page.setViewportSize({ width: 1280, height: 800 });

  // Sign out ends the session.
  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
});

test('a cross-origin state change with the session cookie is refused', async ({ page, request, baseURL }) => {
  const email = `csrf-${Date.now()}@example.test`;
  await activatePhone(baseURL!, email);
  await page.goto('/sign-in');
  await signIn(page, baseURL!, email);

  // From the app's own page the browser sends its Origin: allowed.
  const sameOrigin = await page.evaluate(async () => {
    const res = await fetch('/api/v1/phone-groups', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'From the app' }),
    });
    return `${res.status} ${await res.text()}`;
  });
  expect(sameOrigin).toMatch(/^201 /);
  const cookies = await page.context().cookies();
  const forged = await request.post('/api/v1/phone-groups', {
    headers: {
      origin: 'https://evil.example',
      cookie: cookies.map((c) => `${c.name}=${c.value}`).join('; '),
    },
    data: { name: 'Forged' },
  });
  expect(forged.status()).toBe(403);
});
