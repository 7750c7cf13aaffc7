import { expect, test } from '@playwright/test';
import { Secret, TOTP } from 'otpauth';
import { DeviceClient } from '../tools/device-sim/client';
import { activatePhone, checkPage, codeFor, navigate, signIn } from './helpers';

/**
 * The authenticator's code of the next 30-second step: a code is accepted once, and none of an earlier
 * step after it, so the one just used to turn two-factor on cannot open the sign-in too. The server
 * accepts the step after the current one (clock drift).
 */
function nextCode(secret: string): string {
  return new TOTP({ secret: Secret.fromBase32(secret) }).generate({ timestamp: Date.now() + 30_000 });
}

test('two-factor: add an authenticator in Settings → Security, then sign in with email code and app code', async ({
  page,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const email = `two-factor-${Date.now()}@example.test`;
  await activatePhone(baseURL!, email);
  await signIn(page, baseURL!, email);

  await navigate(page, 'Security');
  await expect(page.getByRole('heading', { name: 'Settings · Security' })).toBeVisible();
  const panel = page.getByRole('region', { name: 'Two-factor sign-in' });
  await panel.getByRole('button', { name: 'Add an authenticator app' }).click();
  await expect(panel.getByRole('img', { name: 'QR code of the authenticator secret' })).toBeVisible();
  const secret = (await panel.getByTestId('totp-secret').textContent())!.trim();
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  await checkPage(page, 'two-factor-enrol');

  // A wrong code is refused at the field.
  const right = new TOTP({ secret: Secret.fromBase32(secret) }).generate();
  await panel.getByLabel('Code from the app').fill(right === '000000' ? '111111' : '000000');
  await panel.getByRole('button', { name: 'Turn on' }).click();
  await expect(panel.getByText('The code is not right')).toBeVisible();

  await panel.getByLabel('Code from the app').fill(new TOTP({ secret: Secret.fromBase32(secret) }).generate());
  await panel.getByRole('button', { name: 'Turn on' }).click();
  const codes = panel.getByTestId('recovery-codes').getByRole('listitem');
  await expect(codes).toHaveCount(10);
  await expect(codes.first()).toHaveText(/^[a-z2-9]{5}-[a-z2-9]{5}$/);
  await checkPage(page, 'two-factor-recovery-codes');
  await panel.getByRole('button', { name: 'I have saved them' }).click();
  await expect(panel.getByTestId('two-factor-state')).toHaveText('Two-factor sign-in is on.');
  await expect(panel).toContainText('10 of 10 recovery codes left');

  // The owner requires it of every member, after confirming.
  const everyone = page.getByRole('region', { name: 'Every member' });
  await everyone.getByRole('button', { name: 'Require two-factor sign-in for every member' }).click();
  const dialog = page.getByRole('dialog', { name: 'Require two-factor sign-in?' });
  await dialog.getByRole('button', { name: 'Require it' }).click();
  await expect(everyone.getByTestId('require-two-factor-state')).toHaveText('Two-factor sign-in is required.');
  await expect(panel).toContainText('it cannot be turned off');
  await checkPage(page, 'security-settings');

  await page.getByRole('button', { name: 'Sign out', exact: true }).click();
  await expect(page).toHaveURL(/\/sign-in$/);

  // The email code first; then the form asks for the app's code.
  const earlier = await new DeviceClient({ baseUrl: baseURL! }).latestCode(email, 'email');
  await page.getByRole('textbox', { name: 'Email' }).fill(email);
  await page.getByRole('button', { name: 'Email me a code' }).click();
  await page.getByRole('textbox', { name: 'Code' }).fill(await codeFor(baseURL!, email, 'email', earlier));
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  const appCode = page.getByRole('textbox', { name: 'Authenticator code' });
  await expect(appCode).toBeVisible();
  await checkPage(page, 'sign-in-second-factor');

  await appCode.fill('000000' === nextCode(secret) ? '111111' : '000000');
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByText('That authenticator code is not right')).toBeVisible();

  // The same email code, now with the app's code.
  await appCode.fill(nextCode(secret));
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await expect(page.getByTestId('account-email')).toHaveText(email);
});
