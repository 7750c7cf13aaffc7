import { expect, test } from '@playwright/test';
import { activatePhone, checkPage, navigate, signIn } from './helpers';

test('groups: the default is locked, a new group is made once, a duplicate name is refused, deleting says where things go', async ({
  page,
  baseURL,
}) => {
  test.setTimeout(60_000);
  const email = `groups-${Date.now()}@example.test`;
  await activatePhone(baseURL!, email);
  await signIn(page, baseURL!, email);
  await navigate(page, 'Groups');
  const groups = page.getByRole('region', { name: 'Phone groups' });

  // The default group holds the phone and the starter credits, and offers no delete.
  const defaultRow = groups.getByRole('row', { name: /default\W+cannot be deleted/ });
  await expect(defaultRow).toContainText('100');
  await expect(defaultRow.getByRole('button')).toHaveCount(0);

  for (let attempt = 0; attempt < 2; attempt += 1) {
    await page.getByLabel('New group name').fill('Support');
    await page.getByRole('button', { name: 'Create group' }).click();
    await expect(groups.getByRole('cell', { name: /^Support/ })).toBeVisible();
  }
  await expect(page.getByLabel('New group name')).toHaveAttribute('aria-invalid', 'true');
  await expect(groups.getByRole('cell', { name: /^Support/ })).toHaveCount(1);
  await checkPage(page, 'groups');

  await groups.getByRole('button', { name: 'Delete Support' }).click();
  const dialog = page.getByRole('dialog', { name: 'Delete “Support”?' });
  await expect(dialog).toContainText('Its 0 phone(s) and 0 credit(s) move to the default group.');
  await dialog.getByRole('button', { name: 'Delete group' }).click();
  await expect(groups.getByRole('cell', { name: /^Support/ })).toHaveCount(0);
});
