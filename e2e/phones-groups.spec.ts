import { expect, test } from '@playwright/test';
import { activatePhone, checkPage, navigate, signIn, uniqueNumber } from './helpers';

test('adding a phone twice and creating a group twice are refused with the reason shown', async ({ page, baseURL }) => {
  test.setTimeout(90_000);
  const email = `dupes-${Date.now()}@example.test`;
  await activatePhone(baseURL!, email);
  await page.goto('/sign-in');
  await signIn(page, baseURL!, email);

  await navigate(page, 'Phones');
  const phones = page.getByRole('region', { name: 'Phones' });
  const spare = uniqueNumber();
  for (let attempt = 0; attempt < 2; attempt += 1) {
    await page.getByLabel('Number (E.164)').fill(spare);
    await page.getByRole('button', { name: 'Add phone' }).click();
    await expect(phones.getByRole('cell', { name: spare, exact: true })).toBeVisible();
  }
  // The second add names the problem at the field or in the region, and the list still holds it once.
  await expect(phones.locator('[aria-invalid="true"], [role="alert"]')).toHaveCount(1);
  await expect(phones.getByRole('cell', { name: spare, exact: true })).toHaveCount(1);
  await checkPage(page, 'phones-duplicate');

  await navigate(page, 'Groups');
  const groups = page.getByRole('region', { name: 'Phone groups' });
  for (let attempt = 0; attempt < 2; attempt += 1) {
    await page.getByLabel('New group name').fill('Support');
    await page.getByRole('button', { name: 'Create group' }).click();
    await expect(groups.getByRole('cell', { name: /^Support/ })).toBeVisible();
  }
  await expect(groups.locator('[aria-invalid="true"], [role="alert"]')).toHaveCount(1);
  await expect(groups.getByRole('cell', { name: /^Support/ })).toHaveCount(1);
  await checkPage(page, 'groups-duplicate');
});
