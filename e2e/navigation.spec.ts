import { expect, type Page, test } from '@playwright/test';
import { activatePhone, checkPage, signIn } from './helpers';

/** Presses Tab until the focused element is the link named `label` (a bounded number of times). */
async function tabTo(page: Page, label: string) {
  for (let presses = 0; presses < 60; presses++) {
    await page.keyboard.press('Tab');
    const focused = await page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');
    if (focused === label) return;
  }
  throw new Error(`Tab never reached "${label}"`);
}

test('the sidebar: grouped links reached and followed from the keyboard, at 1280 and 390 px', async ({
  page,
  baseURL,
}) => {
  test.setTimeout(90_000);
  const email = `navigation-${Date.now()}@example.test`;
  await activatePhone(baseURL!, email);
  await signIn(page, baseURL!, email);
  const nav = page.getByRole('navigation', { name: 'Dashboard' });

  // Wide: the groups stand in a sidebar; Tab walks its links in order, Enter follows one.
  await page.setViewportSize({ width: 1280, height: 800 });
  for (const group of ['Messages', 'Phones', 'Automation', 'Settings']) {
    await expect(nav.getByText(group, { exact: true }).first()).toBeVisible();
  }
  await expect(nav.getByRole('link', { name: 'Overview', exact: true })).toHaveAttribute('aria-current', 'page');
  await tabTo(page, 'Contacts');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/dashboard\/contacts$/);
  await expect(nav.getByRole('link', { name: 'Contacts', exact: true })).toHaveAttribute('aria-current', 'page');
  await checkPage(page, 'navigation-contacts');

  // Phone width: the links fold behind the Menu button, which the keyboard opens; following a link closes it.
  await page.setViewportSize({ width: 390, height: 844 });
  const menu = nav.getByRole('button', { name: /^Menu/ });
  await expect(menu).toHaveAccessibleName('Menu · Contacts');
  await expect(nav.getByRole('link', { name: 'Groups', exact: true })).toBeHidden();
  await menu.focus();
  await page.keyboard.press('Enter');
  await expect(menu).toHaveAttribute('aria-expanded', 'true');
  await tabTo(page, 'Groups');
  await page.keyboard.press('Enter');
  await expect(page).toHaveURL(/\/dashboard\/groups$/);
  await expect(menu).toHaveAttribute('aria-expanded', 'false');
  await expect(menu).toHaveAccessibleName('Menu · Groups');
  await expect(nav.getByRole('link', { name: 'Groups', exact: true })).toBeHidden();
});
