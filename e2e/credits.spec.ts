import { expect, test } from '@playwright/test';
import { activatePhone, checkPage, navigate, signIn } from './helpers';

test('credits: a transfer previews and changes both balances, too many is refused at the field, the ledger filters and charts', async ({
  page,
  request,
  baseURL,
}) => {
  test.setTimeout(60_000);
  const email = `credits-${Date.now()}@example.test`;
  const device = await activatePhone(baseURL!, email);
  const group = await request.post('/api/v1/phone-groups', {
    headers: { 'x-api-key': device.apiKey },
    data: { name: 'Marketing' },
  });
  expect(group.status()).toBe(201);
  await signIn(page, baseURL!, email);
  await navigate(page, 'Credits');
  await expect(page.getByTestId('credits-total')).toHaveText('100');
  const perGroup = page.getByRole('list', { name: 'Balance per group' });

  // The preview shows both balances after the transfer before it is made.
  const transfer = page.getByRole('region', { name: 'Transfer credits' });
  await transfer.getByLabel('To group').selectOption({ label: 'Marketing (0)' });
  await transfer.getByLabel('Amount').fill('25');
  await expect(page.getByTestId('transfer-preview')).toHaveText(
    'After the transfer: Default 100 → 75, Marketing 0 → 25.',
  );
  await transfer.getByRole('button', { name: 'Transfer' }).click();
  await expect(page.getByText('Credits transferred')).toBeVisible();
  await expect(perGroup.getByRole('listitem')).toHaveText(['Default: 75', 'Marketing: 25']);
  await expect(page.getByTestId('credits-total')).toHaveText('100');

  // Too many: the preview warns, and the API's refusal lands on the amount field.
  await transfer.getByLabel('To group').selectOption({ label: 'Marketing (25)' });
  await transfer.getByLabel('Amount').fill('1000');
  await expect(page.getByTestId('transfer-preview')).toContainText('Default does not have that many credits.');
  await transfer.getByRole('button', { name: 'Transfer' }).click();
  const amount = transfer.getByLabel('Amount');
  await expect(amount).toHaveAttribute('aria-invalid', 'true');
  await expect(amount).toHaveAccessibleDescription(/Group “Default” \(\d+\) has 75 credit\(s\); 1000 needed\./);
  await expect(perGroup.getByRole('listitem')).toHaveText(['Default: 75', 'Marketing: 25']);
  await checkPage(page, 'credits');

  // The ledger: filtered by kind, then by group; the chart follows the group.
  const ledger = page.getByRole('region', { name: 'Ledger' });
  await expect(ledger.getByRole('row')).toHaveCount(4); // header, starter grant, transfer out, transfer in
  await ledger.getByLabel('Kind').selectOption({ label: 'transfer in' });
  await expect(ledger.getByRole('row')).toHaveCount(2);
  await expect(ledger.getByRole('cell', { name: 'transfer in' })).toBeVisible();
  await ledger.getByLabel('Kind').selectOption({ label: 'Any kind' });
  await ledger.getByLabel('Group').selectOption({ label: 'Marketing' });
  await expect(ledger.getByRole('row')).toHaveCount(2);
  const chart = page.getByTestId('balance-chart');
  await expect(chart).toHaveAttribute('data-last', '25');
  await expect(chart).toHaveAttribute('data-points', '30');
  await expect(chart.locator('.recharts-area-area')).toHaveCount(1);
  await ledger.getByLabel('Group').selectOption({ label: 'All groups' });
  await expect(chart).toHaveAttribute('data-last', '100');
  // A day with nothing in it says so.
  await ledger.getByLabel('Until').fill('2020-01-01');
  await expect(ledger.getByText('Nothing matches these filters.')).toBeVisible();
  await checkPage(page, 'credits-ledger');
});
