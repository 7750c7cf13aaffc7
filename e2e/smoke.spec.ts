import { expect, test } from '@playwright/test';
import { checkPage } from './helpers';

test('the home page renders and links to the API reference', async ({ page }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { level: 1, name: 'Simgate' })).toBeVisible();
  await page.getByRole('link', { name: 'API reference' }).click();
  await expect(page).toHaveURL(/\/docs$/);
});

test('/docs renders the API reference from the OpenAPI document, accessible at both widths', async ({ page }) => {
  // Three long pages, each run through axe twice: more than the default 30 s on a loaded machine.
  test.setTimeout(90_000);
  await page.goto('/docs');
  await expect(page.getByRole('heading', { level: 1, name: /Simgate API/ })).toBeVisible();
  await checkPage(page, 'docs');

  // An operation from the index, in full: its body fields and its answers.
  await page.getByRole('link', { name: '/api/v1/messages', exact: true }).first().click();
  await expect(page).toHaveURL(/\/docs\/messages#/);
  const send = page.getByRole('article', { name: 'Send a message' });
  await expect(send.getByRole('table', { name: 'Body of Send a message' })).toContainText('request_id');
  await expect(send).toContainText('INSUFFICIENT_CREDITS');
  await checkPage(page, 'docs-messages');

  await page.goto('/docs/events');
  await expect(page.getByRole('article', { name: 'message.received' })).toBeVisible();
  await checkPage(page, 'docs-events');

  // A problem body's `type` points at its code's row on the errors page.
  await page.goto('/docs/errors#INSUFFICIENT_CREDITS');
  const row = page.getByRole('row', { name: /INSUFFICIENT_CREDITS/ });
  await expect(row).toContainText('402');
  await expect(row).toContainText('400 on a transfer');
  await checkPage(page, 'docs-errors');

  // Phone width folds the contents behind a disclosure that still reaches every section.
  await page.setViewportSize({ width: 390, height: 844 });
  const nav = page.getByRole('navigation', { name: 'API reference' });
  await nav.getByText('Contents').click();
  await nav.getByRole('link', { name: 'Webhooks', exact: true }).click();
  await expect(page.getByRole('heading', { level: 1, name: 'Webhooks' })).toBeVisible();
});

test('API answers carry each security header once, set by npm start’s server, errors and Next’s own too', async ({
  request,
}) => {
  const answers = [
    await request.get('/api/health'),
    await request.get('/api/v1/phones'),
    await request.get('/api/v1/no-such-thing'),
    await request.put('/api/v1/messages', { data: {} }),
    await request.get('/api/v1/../v1/phones'),
  ];
  expect(answers.map((res) => res.status())).toEqual([200, 401, 404, 405, 401]);
  for (const res of answers) {
    const headers = res.headersArray();
    for (const name of ['content-security-policy', 'x-content-type-options', 'x-frame-options', 'referrer-policy']) {
      expect(headers.filter((header) => header.name.toLowerCase() === name).length, `${res.url()} ${name}`).toBe(1);
    }
    expect(res.headers()['content-security-policy']).toBe("default-src 'none'; frame-ancestors 'none'");
  }
  expect(answers[1]?.headers()['x-request-id']).toBeTruthy();
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
