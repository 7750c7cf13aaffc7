import { expect, test } from '@playwright/test';
import { DeviceClient } from '../tools/device-sim/client';
import { activatePhone, checkPage as check, navigate, signIn, uniqueNumber } from './helpers';

test('contacts: a CSV import shows its bad rows first, then names the numbers in conversations and compose', async ({
  page,
  request,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const email = `contacts-${Date.now()}@example.test`;
  const device = await activatePhone(baseURL!, email);
  const [alice, bob] = [uniqueNumber(), uniqueNumber()];
  const sent = await request.post('/api/v1/messages', {
    headers: { 'x-api-key': device.apiKey },
    data: { from: device.phone, to: alice, content: 'Your table is booked for 8pm' },
  });
  expect(sent.status()).toBe(201);
  await new DeviceClient({ baseUrl: baseURL!, deviceKey: device.deviceKey }).receive({
    from: alice,
    content: 'Thanks, see you then',
  });

  await signIn(page, baseURL!, email);
  await navigate(page, 'Contacts');
  const contacts = page.getByRole('region', { name: 'Contacts' });
  await expect(contacts.getByText('No contacts yet')).toBeVisible();
  await check(page, 'contacts-empty');

  const csv = ['Name,Phone,Tags', `Alice Example,${alice},vip;regulars`, `Bob Example,${bob},`, 'Broken,12345,'];
  await page.getByLabel('CSV file').setInputFiles({
    name: 'contacts.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(`${csv.join('\n')}\n`),
  });
  const importer = page.getByRole('region', { name: 'Import contacts' });
  await expect(importer.getByTestId('import-preview')).toHaveText('2 valid rows: 2 new, 0 to update · 1 invalid');
  await expect(importer.getByRole('row', { name: /12345/ })).toContainText('not a valid E.164');
  // The preview wrote nothing.
  await expect(contacts.getByText('No contacts yet')).toBeVisible();
  await check(page, 'contacts-import-preview');

  await importer.getByRole('button', { name: 'Import 2 contacts' }).click();
  await expect(importer.getByText('Imported: 2 created, 0 updated, 1 rows skipped.')).toBeVisible();
  const aliceRow = contacts.getByRole('row', { name: /Alice Example/ });
  await expect(aliceRow).toContainText('vip, regulars');
  await expect(contacts.getByRole('row', { name: /Bob Example/ })).toBeVisible();
  await check(page, 'contacts-list');

  await aliceRow.getByRole('button', { name: 'Alice Example', exact: true }).click();
  const details = page.getByRole('dialog', { name: 'Alice Example' });
  await expect(details).toContainText('Not opted out');
  await details.getByRole('link', { name: 'Open the conversation' }).click();

  const messages = page.getByRole('region', { name: 'Messages' });
  const list = messages.getByRole('list', { name: 'Conversations' });
  await expect(
    list.getByRole('button', { name: new RegExp(`Alice Example ${alice.replace('+', '\\+')}`) }),
  ).toBeVisible();
  const thread = messages.getByRole('region', { name: `Conversation with ${alice}` });
  await expect(thread.getByRole('heading')).toContainText('Alice Example');
  await expect(thread.getByRole('listitem')).toHaveCount(2);
  await check(page, 'contacts-conversation');

  await messages.getByLabel('List').check();
  await expect(messages.getByRole('row', { name: /Your table is booked/ }).getByTestId('contact-name')).toHaveText(
    'Alice Example',
  );

  await page.getByLabel('To', { exact: true }).fill('Bob');
  await expect(page.locator(`datalist option[value="${bob}"]`)).toHaveAttribute('label', 'Bob Example');
});
