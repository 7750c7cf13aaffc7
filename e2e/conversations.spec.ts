import { expect, test } from '@playwright/test';
import { DeviceClient } from '../tools/device-sim/client';
import { activatePhone, checkPage as check, navigate, signIn, uniqueNumber } from './helpers';

test('messages: filtered by phone and day, and read as conversations with each counterpart', async ({
  page,
  request,
  baseURL,
}) => {
  test.setTimeout(90_000);
  const email = `threads-${Date.now()}@example.test`;
  const device = await activatePhone(baseURL!, email);
  const headers = { 'x-api-key': device.apiKey };
  const [alice, bob] = [uniqueNumber(), uniqueNumber()];
  for (const [to, content] of [
    [alice, 'Your table is booked for 8pm'],
    [bob, 'Your parcel is on its way'],
  ] as const) {
    const sent = await request.post('/api/v1/messages', { headers, data: { from: device.phone, to, content } });
    expect(sent.status()).toBe(201);
  }
  await new DeviceClient({ baseUrl: baseURL!, deviceKey: device.deviceKey }).receive({
    from: alice,
    content: 'Thanks, see you then',
  });

  await signIn(page, baseURL!, email);
  await navigate(page, 'Messages');
  const region = page.getByRole('region', { name: 'Messages' });
  await expect(region.getByRole('link', { name: 'Your parcel is on its way' })).toBeVisible();

  // A day with nothing in it empties the list, and says why.
  await region.getByLabel('Until').fill('2020-01-01');
  await expect(region.getByText('Nothing matches these filters.')).toBeVisible();
  await region.getByLabel('Until').fill('');
  await region.getByLabel('Phone', { exact: true }).selectOption(device.phone);
  await expect(region.getByRole('link', { name: 'Your parcel is on its way' })).toBeVisible();

  await region.getByLabel('Conversations').check();
  const list = region.getByRole('list', { name: 'Conversations' });
  await expect(list.getByRole('button')).toHaveCount(2);
  await list.getByRole('button', { name: new RegExp(alice.replace('+', '\\+')) }).click();
  const thread = region.getByRole('region', { name: `Conversation with ${alice}` });
  await expect(thread.getByRole('listitem')).toHaveCount(2);
  await expect(thread.getByRole('listitem').first()).toContainText('Your table is booked for 8pm');
  await expect(thread.getByRole('listitem').last()).toContainText('Thanks, see you then');
  await check(page, 'messages-conversations');
});
