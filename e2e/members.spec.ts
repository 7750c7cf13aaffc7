import { type APIRequestContext, type Browser, type BrowserContext, expect, type Page, test } from '@playwright/test';
import { activatePhone, checkPage, navigate, signIn } from './helpers';

/** A new account with a phone, and a dashboard session in a context of its own, opened with a key of `role`. */
async function signInWithRole(
  role: 'developer' | 'operator',
  { browser, request, baseURL }: { browser: Browser; request: APIRequestContext; baseURL: string },
): Promise<{ context: BrowserContext; page: Page }> {
  const email = `${role}-${Date.now()}@example.test`;
  const { apiKey } = await activatePhone(baseURL, email);
  const created = await request.post('/api/v1/auth/api-keys', {
    headers: { 'x-api-key': apiKey },
    data: { name: `A ${role}`, role },
  });
  expect(created.status()).toBe(201);
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto('/sign-in');
  await page.getByLabel('Account API key').fill((await created.json()).key as string);
  await page.getByRole('button', { name: 'Sign in with the key' }).click();
  await expect(page.getByTestId('account-email')).toHaveText(email);
  return { context, page };
}

test('members: the owner sees the members and the role table, and the account keeps its last owner', async ({
  page,
  baseURL,
}) => {
  test.setTimeout(60_000);
  const email = `members-${Date.now()}@example.test`;
  await activatePhone(baseURL!, email);
  await signIn(page, baseURL!, email);
  await navigate(page, 'Members');

  const members = page.getByRole('region', { name: 'Members' });
  await expect(members.getByTestId('your-role')).toHaveText('Your role: owner');
  await expect(members.getByRole('cell').filter({ hasText: email })).toContainText('(you)');
  const roles = page.getByRole('region', { name: 'What each role may do' });
  // The matrix is ROLE_ACCESS: a viewer reads messages, an operator has no API keys, only an owner changes the account.
  const row = (area: string) => roles.getByRole('row', { name: new RegExp(`^${area}`) });
  await expect(row('Messages').getByRole('cell')).toHaveText(['Change', 'Change', 'Change', 'Change', 'Read']);
  await expect(row('API keys').getByRole('cell')).toHaveText(['Change', 'Change', 'Change', '—', '—']);
  await expect(row('The account').getByRole('cell')).toHaveText(['Change', 'Read', 'Read', 'Read', 'Read']);
  await checkPage(page, 'members');

  // The last owner can neither step down nor leave: the API's reason is shown.
  await members.getByLabel(`Role of ${email}`).selectOption('admin');
  await expect(members.getByRole('alert')).toContainText('An account always keeps at least one owner');
  await members.getByRole('button', { name: 'Leave the account' }).click();
  const dialog = page.getByRole('dialog', { name: 'Leave this account?' });
  await checkPage(page, 'members-leave');
  await dialog.getByRole('button', { name: 'Leave' }).click();
  await expect(dialog.getByRole('alert')).toContainText('An account always keeps at least one owner');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(dialog).toBeHidden();
});

test('an operator’s session cannot open API keys: the panel says which roles may', async ({
  browser,
  request,
  baseURL,
}) => {
  test.setTimeout(60_000);
  // A dashboard session opened with a key carries the key's role, as a member's carries theirs.
  const { context, page } = await signInWithRole('operator', { browser, request, baseURL: baseURL! });

  // The sidebar leaves out what the role may not open; the page itself, reached by its address, says why.
  const nav = page.getByRole('navigation', { name: 'Dashboard' });
  await expect(nav.getByRole('link', { name: 'API keys', exact: true, includeHidden: true })).toHaveCount(0);
  await page.goto('/dashboard/settings/api-keys');
  const keys = page.getByRole('region', { name: 'API keys' });
  await expect(keys.getByRole('alert')).toContainText(
    'Your role (operator) may not see API keys; an owner, admin or developer may.',
  );
  // Nor is it offered a form it may not use.
  await expect(page.getByRole('button', { name: 'Create key' })).toHaveCount(0);
  await expect(page.getByLabel('Role of the new key')).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Create an Auth Token' })).toHaveCount(0);
  await expect(page.getByRole('button', { name: 'Create an SMPP login' })).toHaveCount(0);
  await checkPage(page, 'api-keys-operator');

  await navigate(page, 'Members');
  await expect(page.getByTestId('your-role')).toHaveText('Your role: operator');
  await expect(page.getByRole('region', { name: 'Members' }).getByRole('combobox')).toHaveCount(0);
  await context.close();
});

test('a developer’s session is offered keys of its own role or below, and a default that is its role', async ({
  browser,
  request,
  baseURL,
}) => {
  test.setTimeout(60_000);
  const { context, page } = await signInWithRole('developer', { browser, request, baseURL: baseURL! });
  await navigate(page, 'API keys');

  const roles = page.getByLabel('Role of the new key').getByRole('option');
  await expect(roles).toHaveText(['default (developer)', 'developer', 'operator', 'viewer']);
  await page.getByLabel('Role of the new key').selectOption('viewer');
  await page.getByLabel('New key name').fill('Read-only dashboard');
  await page.getByRole('button', { name: 'Create key' }).click();
  await expect(page.getByTestId('secret-value')).toBeVisible();
  await page.getByRole('button', { name: 'Done' }).click();
  await expect(
    page.getByRole('row', { name: /Read-only dashboard/ }).getByRole('cell', { name: 'viewer' }),
  ).toBeVisible();
  await checkPage(page, 'api-keys-developer');
  await context.close();
});
