import { expect, test } from '@playwright/test';
import { DeviceClient } from '../tools/device-sim/client';
import { activatePhone, checkPage, codeFor, navigate, signIn } from './helpers';

test('sign-in: the dashboard asks for it, a wrong code is refused, the emailed code signs in, sign-out ends it', async ({
  page,
  baseURL,
}) => {
  test.setTimeout(60_000);
  const email = `owner-${Date.now()}@example.test`;
  await activatePhone(baseURL!, email);

  await page.goto('/dashboard/phones');
  await expect(page).toHaveURL(/\/sign-in$/);
  await checkPage(page, 'sign-in');

  // A wrong code is refused with the reason, and the form stays usable.
  const earlier = await new DeviceClient({ baseUrl: baseURL! }).latestCode(email, 'email');
  await page.getByRole('textbox', { name: 'Email' }).fill(email);
  await page.getByRole('button', { name: 'Email me a code' }).click();
  const code = await codeFor(baseURL!, email, 'email', earlier);
  const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0');
  await page.getByRole('textbox', { name: 'Code' }).fill(wrong);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByText('That code is not right. Check the email.')).toBeVisible();
  await checkPage(page, 'sign-in-wrong-code');

  // The right code, from the dev inbox, signs in.
  await page.getByRole('textbox', { name: 'Code' }).fill(code);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByTestId('account-email')).toHaveText(email);
  await expect(page.getByRole('heading', { name: 'Overview' })).toBeVisible();

  // At phone width the navigation folds behind a menu that still reaches every screen.
  await page.setViewportSize({ width: 390, height: 844 });
  await navigate(page, 'Groups');
  await expect(page).toHaveURL(/\/dashboard\/groups$/);
  await expect(page.getByRole('button', { name: /^Menu/ })).toHaveAttribute('aria-expanded', 'false');
  await page.setViewportSize({ width: 1280, height: 800 });
  await navigate(page, 'Settings');
  await expect(page.getByRole('heading', { name: 'Settings' })).toBeVisible();
  await checkPage(page, 'settings');

  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await expect(page).toHaveURL(/\/sign-in$/);
  await page.goto('/dashboard');
  await expect(page).toHaveURL(/\/sign-in$/);

  // Signing in again works with a new code (the helper reads the newest).
  await signIn(page, baseURL!, email);
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
