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

test('pages run under a nonce-based Content-Security-Policy with no violation', async ({ page, request }) => {
  const violations: string[] = [];
  page.on('console', (message) => {
    if (/Content Security Policy|Refused to (execute|load|apply)/i.test(message.text()))
      violations.push(message.text());
  });
  for (const path of ['/', '/sign-in', '/docs', '/dev/inbox']) {
    // Every script the server writes into the page carries this answer's nonce (scripts those load
    // later are trusted through 'strict-dynamic').
    const served = await request.get(path);
    const csp = served.headers()['content-security-policy'] ?? '';
    expect(csp, path).toMatch(/script-src 'self' 'nonce-[^']+' 'strict-dynamic'/);
    expect(served.headers()['x-content-type-options']).toBe('nosniff');
    const nonce = /'nonce-([^']+)'/.exec(csp)?.[1];
    const scripts = (await served.text()).match(/<script\b[^>]*>/g) ?? [];
    expect(scripts.length, path).toBeGreaterThan(0);
    for (const tag of scripts) expect(tag, path).toContain(`nonce="${nonce}"`);
    await page.goto(path);
  }
  await expect(page.getByRole('heading', { name: 'Dev inbox' })).toBeVisible();
  expect(violations).toEqual([]);
});
