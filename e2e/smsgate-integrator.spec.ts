import { expect, test } from '@playwright/test';
import { activatePhone, checkPage as check, navigate, signIn, uniqueNumber } from './helpers';

test('SMSGate integrator API: served at both base URLs, its webhooks listed in the dashboard as SMSGate format', async ({
  page,
  request,
  baseURL,
}) => {
  test.setTimeout(90_000);
  const email = `smsgate-${Date.now()}@example.test`;
  const device = await activatePhone(baseURL!, email);
  const auth = { authorization: `Basic ${Buffer.from(`my-login:${device.apiKey}`).toString('base64')}` };

  // The public server's path and the private server's, through the real server and its proxy.
  const health = await request.get('/3rdparty/v1/health');
  expect(health.status()).toBe(200);
  expect(await health.json()).toMatchObject({ status: 'pass' });
  const to = uniqueNumber();
  const sent = await request.post('/3rdparty/v1/message', {
    headers: auth,
    data: { message: 'Hello from an SMSGate client', phoneNumbers: [to] },
  });
  expect(sent.status()).toBe(202);
  const state = await sent.json();
  expect(sent.headers().location).toBe(`/3rdparty/v1/messages/${state.id}`);
  const read = await request.get(`/api/3rdparty/v1/messages/${state.id}`, { headers: auth });
  expect(await read.json()).toMatchObject({ id: state.id, state: 'Pending', recipients: [{ phoneNumber: to }] });
  expect((await request.get('/api/3rdparty/v1/devices', { headers: { 'x-api-key': device.apiKey } })).status()).toBe(
    401,
  );

  const hook = await request.post('/api/3rdparty/v1/webhooks', {
    headers: auth,
    data: { id: 'crm', url: 'https://hooks.example.test/sms', event: 'sms:received' },
  });
  expect(hook.status()).toBe(201);

  await signIn(page, baseURL!, email);
  await navigate(page, 'Webhooks');
  const item = page.getByRole('listitem').filter({ hasText: 'https://hooks.example.test/sms' });
  await expect(item.getByText('SMSGate format')).toBeVisible();
  await expect(item.getByRole('button', { name: /Show secret/ })).toHaveCount(0);
  await check(page, 'webhooks-smsgate');
});
