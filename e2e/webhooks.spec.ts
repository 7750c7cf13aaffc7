import { expect, test } from '@playwright/test';
import { loadTestCertificates, startReceiver } from '../test/fixtures/tls/receiver';
import { activatePhone, checkPage, navigate, signIn, uniqueNumber } from './helpers';

test('webhooks: made with events and a phone filter, http:// refused, a test reaches a local receiver and its delivery opens', async ({
  page,
  request,
  baseURL,
}) => {
  test.setTimeout(90_000);
  const receiver = await startReceiver(loadTestCertificates(process.env.E2E_TLS_DIR!));
  try {
    const email = `hooks-${Date.now()}@example.test`;
    const device = await activatePhone(baseURL!, email);
    // A second phone, so the filter is a real choice.
    const other = uniqueNumber();
    const added = await request.post('/api/v1/phones', {
      headers: { 'x-api-key': device.apiKey },
      data: { phone: other },
    });
    expect(added.status()).toBe(201);
    await signIn(page, baseURL!, email);
    await navigate(page, 'Webhooks');
    const hooks = page.getByRole('region', { name: 'Webhooks' });
    await expect(hooks.getByText('No webhooks yet')).toBeVisible();

    // http:// is refused with the field named; nothing is created.
    const url = receiver.url('/simgate');
    await page.getByLabel('URL (https)').fill(url.replace('https://', 'http://'));
    await page.getByRole('checkbox', { name: /message\.received/ }).check();
    await page.getByRole('checkbox', { name: /message\.delivered/ }).check();
    await page.getByRole('checkbox', { name: device.phone }).check();
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await expect(page.getByLabel('URL (https)')).toHaveAttribute('aria-invalid', 'true');
    await expect(hooks.getByText('No webhooks yet')).toBeVisible();

    await page.getByLabel('URL (https)').fill(url);
    await page.getByRole('button', { name: 'Create webhook' }).click();
    await expect(page.getByTestId('secret-value')).toHaveText(/^whsec_/);
    await page.getByRole('button', { name: 'Done' }).click();
    const item = hooks.getByRole('listitem').filter({ hasText: url });
    await expect(item).toContainText('message.received, message.delivered');
    await expect(item).toContainText(`phones: ${device.phone}`);
    await checkPage(page, 'webhooks');

    // A test event reaches the receiver, signed, and its delivery turns succeeded in the list.
    await receiver.respond(() => ({
      status: 200,
      body: '{"thanks":true}',
      headers: { 'content-type': 'application/json' },
    }));
    await page.getByRole('button', { name: `Send test of ${url}` }).click();
    await expect.poll(() => receiver.hitsFor('/simgate').length, { timeout: 20_000 }).toBe(1);
    const hit = receiver.hitsFor('/simgate')[0]!;
    expect(hit.headers['webhook-signature']).toMatch(/^v1,/);
    const eventId = hit.headers['webhook-id']!;
    const deliveries = item.getByRole('table');
    await expect(deliveries.getByRole('cell', { name: 'succeeded' })).toBeVisible({ timeout: 20_000 });

    // The delivery's page: the request as posted, and the attempt with the receiver's answer and its time.
    await deliveries.getByRole('link', { name: /webhook\.test/ }).click();
    await expect(page).toHaveURL(/\/dashboard\/settings\/webhooks\/[^/]+\/deliveries\/[^/]+$/);
    await expect(page.getByTestId('delivery-status')).toHaveText('succeeded');
    await expect(page.getByRole('table', { name: 'Request headers' })).toContainText(eventId);
    await expect(page.getByTestId('request-body')).toContainText('"type": "webhook.test"');
    const attempt = page.getByTestId('attempt');
    await expect(attempt).toHaveCount(1);
    await expect(attempt).toContainText('HTTP 200');
    await expect(attempt.getByTestId('attempt-latency')).toHaveText(/^\d+ ms$/);
    await expect(page.getByRole('region', { name: 'Response body of attempt 1' })).toHaveText('{"thanks":true}');
    await checkPage(page, 'webhook-delivery');
  } finally {
    await receiver.close();
  }
});
