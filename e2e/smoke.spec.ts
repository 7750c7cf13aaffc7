import { expect, test } from '@playwright/test';

test('the home page renders and links to the API reference', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1, name: 'Simgate' })).toBeVisible();
  await page.getByRole('link', { name: 'API reference' }).click();
  await expect(page).toHaveURL(/\/docs$/);
});

test('/docs renders the API reference from the OpenAPI document', async ({ page }) => {
  await page.goto('/docs');
  await expect(page.getByText('Simgate API').first()).toBeVisible({ timeout: 20_000 });
});

test('the retired password endpoints answer 410 problem+json', async ({ request }) => {
  for (const path of ['/api/v1/auth/register', '/api/v1/auth/login']) {
    const res = await request.post(path, { data: {} });
    expect(res.status()).toBe(410);
    expect(res.headers()['content-type']).toBe('application/problem+json');
    expect(await res.json()).toMatchObject({ code: 'AUTH_METHOD_RETIRED', status: 410 });
  }
});
