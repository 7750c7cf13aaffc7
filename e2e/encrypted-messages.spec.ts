import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect, test } from '@playwright/test';
import { activatePhone, checkPage, deviceCli, navigate, signIn, uniqueNumber } from './helpers';

const PASSPHRASE = 'kitchen table 42';

/**
 * The browser encrypts in the compose form with the SMSGate app's format; the simulated app
 * (tools/device-sim, `--passphrase`) decrypts and delivers it; the list, the conversations and the
 * message's page decrypt with the passphrase kept in the page's memory. The server sees ciphertext only.
 */
test('encrypted messages: compose encrypts in the browser, the app decrypts, the dashboard reads them', async ({
  page,
  request,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const email = `crypto-${Date.now()}@example.test`;
  const { phone, apiKey } = await activatePhone(baseURL!, email);
  const headers = { 'x-api-key': apiKey };
  const phones = await (await request.get('/api/v1/phones', { headers })).json();
  const phoneId = phones.data.find((p: { phone: string }) => p.phone === phone).id;
  const pairing = await (await request.post(`/api/v1/phones/${phoneId}/pairing-code`, { headers })).json();
  const state = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-crypto-')), 'app.json');
  const app = deviceCli([
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
    pairing.code,
    '--delay-ms',
    '50',
    '--passphrase',
    PASSPHRASE,
  ]);
  let output = '';
  app.stdout?.on('data', (chunk) => {
    output += chunk;
  });
  app.stderr?.on('data', (chunk) => {
    output += chunk;
  });
  try {
    // The phone was verified by its activation already: wait for the app to have paired (which starts a
    // new SIM check) before waiting for that check to pass.
    await expect
      .poll(
        async () => {
          const devices = await (await request.get(`/api/v1/phones/${phoneId}/devices`, { headers })).json();
          return devices.data.some(
            (device: { kind: string; current: boolean }) => device.current && device.kind === 'app',
          );
        },
        { timeout: 30_000 },
      )
      .toBe(true);
    await expect
      .poll(async () => (await (await request.get(`/api/v1/phones/${phoneId}`, { headers })).json()).sim_verification, {
        timeout: 30_000,
      })
      .toBe('verified');

    await signIn(page, baseURL!, email);
    await navigate(page, 'Messages');
    // The passphrase field shows only once encryption is chosen (or an encrypted message is listed).
    await expect(page.getByLabel('Passphrase for encrypted messages')).toHaveCount(0);
    const to = uniqueNumber();
    await page.getByLabel('From (your phone)').selectOption(phone);
    await page.getByLabel('To', { exact: true }).fill(to);
    await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Encrypted hello from the browser');
    await page.getByLabel('Encrypt for the SMSGate app').check();
    await page.getByLabel('Passphrase for encrypted messages').fill(PASSPHRASE);
    await page.getByRole('button', { name: 'Send' }).click();

    // Decrypted in the list, in this page.
    const row = page.getByRole('row', { name: /Encrypted hello from the browser/ });
    await expect(row).toBeVisible({ timeout: 15_000 });
    await expect(row).toContainText(to);

    // The server holds only ciphertext, and the app, holding the passphrase, delivered it.
    const listed = await (await request.get('/api/v1/messages?direction=outbound', { headers })).json();
    const stored = listed.data.find((m: { encrypted: boolean }) => m.encrypted);
    expect(stored.content).toMatch(/^\$aes-256-cbc\/pbkdf2-sha1\$i=75000\$/);
    expect(stored.to).toMatch(/^\$aes-256-cbc\/pbkdf2-sha1\$/);
    expect(JSON.stringify(listed)).not.toContain('Encrypted hello');
    await expect
      .poll(async () => (await (await request.get(`/api/v1/messages/${stored.id}`, { headers })).json()).status, {
        timeout: 30_000,
      })
      .toBe('delivered');
    await checkPage(page, 'encrypted-list');

    // Another passphrase does not open it; none at all shows that it is locked.
    const passphrase = page.getByLabel('Passphrase for encrypted messages');
    await passphrase.fill('not the passphrase');
    await expect(page.getByText('Encrypted text — this passphrase does not open it').first()).toBeVisible();
    await passphrase.fill('');
    await expect(page.getByText('Encrypted text — enter the passphrase to read it').first()).toBeVisible();
    await checkPage(page, 'encrypted-locked');

    // The conversations, decrypted.
    await passphrase.fill(PASSPHRASE);
    await page.getByRole('radio', { name: 'Conversations' }).check();
    await expect(page.getByRole('list', { name: 'Conversations' })).toContainText(to);
    await expect(page.getByRole('region', { name: 'Conversation with an encrypted number' })).toContainText(
      'Encrypted hello from the browser',
    );
    await checkPage(page, 'encrypted-conversations');

    // The message's page, reached within the page: the passphrase is still in memory.
    await page
      .getByRole('link', { name: /Encrypted hello from the browser/ })
      .first()
      .click();
    await expect(page.getByRole('heading', { level: 1 })).toContainText(`To ${to}`);
    await expect(page.getByText('Encrypted with the SMSGate app’s passphrase')).toBeVisible();
    await checkPage(page, 'encrypted-message');

    // A reload forgets it: nothing was stored.
    await page.reload();
    await expect(page.getByRole('heading', { level: 1 })).toContainText('Encrypted number');
    await expect(page.getByLabel('Passphrase for encrypted messages')).toHaveValue('');
  } finally {
    app.kill('SIGTERM');
    await new Promise((resolve) => (app.exitCode !== null ? resolve(null) : app.once('exit', resolve)));
  }
  expect(output).not.toMatch(/error:/);
});
