import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { activatePhone, checkPage as check, exited, navigate, signIn, watchedDeviceCli } from './helpers';

test('recover three SMS a simulated SMSGate phone received while disconnected, without doubling any', async ({
  page,
  request,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const email = `export-${Date.now()}@example.test`;
  const { phone, apiKey } = await activatePhone(baseURL!, email);
  const headers = { 'x-api-key': apiKey };
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-export-'));
  const state = path.join(dir, 'app.json');
  // Three SMS in the phone's inbox that never reached the server.
  const inbox = path.join(dir, 'inbox.json');
  const hour = 3_600_000;
  fs.writeFileSync(
    inbox,
    JSON.stringify(
      [3, 2, 1].map((hoursAgo, index) => ({
        from: '+14155550166',
        text: `Missed while offline ${index + 1}`,
        receivedAt: new Date(Date.now() - hoursAgo * hour).toISOString(),
      })),
    ),
  );

  await signIn(page, baseURL!, email);
  await navigate(page, 'Phones');
  await page.getByRole('link', { name: phone, exact: true }).click();
  await expect(page.getByRole('heading', { name: phone })).toBeVisible();
  const phoneId = page.url().split('/').pop();
  const connect = page.getByRole('region', { name: 'Connect an Android phone' });
  await connect.getByRole('button', { name: 'Get a pairing code' }).click();
  const code = (await connect.getByTestId('pairing-code').textContent())?.replace(/\s/g, '') ?? '';

  const app = watchedDeviceCli([
    '--base-url',
    baseURL!,
    '--state',
    state,
    'run',
    '--protocol',
    'smsgate',
    '--phone',
    phone,
    '--code',
    code,
    '--delay-ms',
    '50',
    '--inbox',
    inbox,
  ]);
  try {
    await expect(connect.getByText(/is connected/)).toBeVisible({ timeout: 20_000 });
    await expect
      .poll(async () => (await (await request.get(`/api/v1/phones/${phoneId}`, { headers })).json()).sim_verification, {
        timeout: 20_000,
      })
      .toBe('verified');

    const recovery = page.getByRole('region', { name: 'Recover messages received while disconnected' });
    await expect(recovery).toBeVisible();
    await expect(recovery.getByText('No recovery asked for yet.')).toBeVisible();
    await check(page, 'phone-inbox-recovery');

    // The default period is the last 24 hours: all three are in it.
    await recovery.getByRole('button', { name: 'Recover messages' }).click();
    await expect(page.getByText('Asked the phone to send its messages again.')).toBeVisible();
    const outcome = recovery.getByTestId('inbox-export-outcome').first();
    await expect(outcome).toContainText('3 recovered, 0 already here', { timeout: 20_000 });
    await check(page, 'phone-inbox-recovered');

    // Asked again, the phone sends the same three: nothing new.
    await recovery.getByRole('button', { name: 'Recover messages' }).click();
    await expect(recovery.getByTestId('inbox-export-outcome')).toHaveCount(2);
    await expect(recovery.getByTestId('inbox-export-outcome').first()).toContainText('0 recovered, 3 already here', {
      timeout: 20_000,
    });
    const inbound = await (
      await request.get(`/api/v1/messages?direction=inbound&phone=${encodeURIComponent(phone)}`, { headers })
    ).json();
    const recovered = inbound.data.filter((m: { content: string }) => m.content.startsWith('Missed while offline'));
    expect(recovered).toHaveLength(3);
  } finally {
    app.child.kill('SIGTERM');
    await exited(app.child);
  }
  expect(app.output()).not.toMatch(/error:/);
});
