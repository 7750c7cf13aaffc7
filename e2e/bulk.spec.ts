import { expect, test } from '@playwright/test';
import { activatePhone, checkPage, navigate, signIn } from './helpers';

test('a bulk from a CSV of 50 rows lists the 2 invalid ones, shows the cost, sends 48 and counts them', async ({
  page,
  baseURL,
}) => {
  test.setTimeout(90_000);
  const email = `bulk-${Date.now()}@example.test`;
  const device = await activatePhone(baseURL!, email);
  await page.goto('/sign-in');
  await signIn(page, baseURL!, email);

  await navigate(page, 'Messages');
  await page.getByRole('link', { name: /bulk/ }).click();
  await expect(page.getByLabel('From (your phone)')).toHaveValue(device.phone);

  const rows = ['phone'];
  for (let i = 0; i < 48; i += 1) rows.push(`+1415555${String(3000 + i).padStart(4, '0')}`);
  rows.splice(10, 0, 'not a number');
  rows.splice(30, 0, '12345');
  await page.getByLabel('Upload a CSV of recipients').setInputFiles({
    name: 'recipients.csv',
    mimeType: 'text/csv',
    buffer: Buffer.from(rows.join('\n')),
  });
  await page.getByRole('textbox', { name: 'Message', exact: true }).fill('Bulk from the dashboard');

  const summary = page.getByTestId('bulk-summary');
  await expect(summary).toContainText('48 recipients');
  await expect(summary).toContainText('costs 48 credits from group Default (balance 100)');
  const invalid = page.getByRole('list', { name: 'Invalid rows' }).getByRole('listitem');
  await expect(invalid).toHaveText(['Row 11: not a number', 'Row 31: 12345']);
  await checkPage(page, 'bulk-compose');

  await page.getByRole('button', { name: 'Send to 48 recipients' }).click();
  await expect(page.getByTestId('bulk-progress')).toContainText('of 48 finished');
  await expect(page.getByTestId('bulk-count-queued')).toContainText('48');
  await checkPage(page, 'bulk-progress');
});
