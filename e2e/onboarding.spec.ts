import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { checkPage, deviceCli, exitOf, navigate, signIn, uniqueNumber } from './helpers';

test('onboarding: the overview walks a new account from connecting the simulator to a first delivered message', async ({
  page,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const email = `new-${Date.now()}@example.test`;
  const phone = uniqueNumber();
  const state = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-onboarding-')), 'device.json');
  const common = ['--base-url', baseURL!, '--state', state];

  // The overview's first step, as written there: register the simulator (this makes the account).
  const registered = await exitOf(deviceCli([...common, 'register', '--phone', phone, '--email', email]));
  expect(registered.code, registered.output).toBe(0);

  await signIn(page, baseURL!, email);
  const steps = page.getByRole('region', { name: 'Get started' });
  await expect(steps.getByText('Connect a phone (done)')).toBeVisible();
  await expect(steps.getByText('Send a first message (to do)')).toBeVisible();
  await expect(steps).toContainText('npm run device -- register');
  await checkPage(page, 'onboarding');

  // Second step: compose from the phone just connected.
  await steps.getByRole('link', { name: 'Messages' }).click();
  await page.getByLabel('To', { exact: true }).fill('+14155550123');
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill('My first Simgate message');
  await page.getByRole('button', { name: 'Send' }).click();
  await expect(page.getByText('Message queued')).toBeVisible();

  // Back on the overview, start the simulator: the step ticks itself off without a reload.
  await navigate(page, 'Overview');
  await expect(steps.getByText('Send a first message (to do)')).toBeVisible();
  const runner = deviceCli([...common, 'run', '--phone', phone, '--delay-ms', '50', '--wait', '5']);
  try {
    await expect(steps.getByText('Send a first message (done)')).toBeVisible({ timeout: 30_000 });
  } finally {
    runner.kill('SIGTERM');
  }
  await expect(page.getByTestId('onboarding-done')).toBeVisible();
  await checkPage(page, 'onboarding-done');
  await steps.getByRole('button', { name: 'Hide' }).click();
  await expect(steps).toHaveCount(0);
});
