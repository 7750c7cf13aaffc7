import { expect, test } from '@playwright/test';
import { DeviceClient } from '../tools/device-sim/client';
import { activatePhone, checkPage as check, navigate, signIn } from './helpers';

test('quotas: caps set on a phone show as meters, a bulk through a group spreads by room and shows when it finishes', async ({
  page,
  request,
  baseURL,
}) => {
  test.setTimeout(120_000);
  const email = `quotas-${Date.now()}@example.test`;
  const first = await activatePhone(baseURL!, email);
  const second = await activatePhone(baseURL!, email);
  const headers = { 'x-api-key': first.apiKey };
  // Both phones online, so that a group send may choose either.
  for (const device of [first, second]) {
    await new DeviceClient({ baseUrl: baseURL!, deviceKey: device.deviceKey }).heartbeat(device.phone, 90);
  }
  const listed = (await (await request.get('/api/v1/phones', { headers })).json()).data as Array<{
    id: string;
    phone: string;
  }>;
  const idOf = (phone: string) => listed.find((p) => p.phone === phone)!.id;
  expect(
    (await request.patch(`/api/v1/phones/${idOf(second.phone)}`, { headers, data: { monthly_recipient_cap: 4 } })).ok(),
  ).toBe(true);

  // Caps set on the first phone's page.
  await signIn(page, baseURL!, email);
  await navigate(page, 'Phones');
  await page.getByRole('link', { name: first.phone }).click();
  const settings = page.getByRole('region', { name: 'Name, group, pacing and quotas' });
  await settings.getByLabel('Hourly cap').fill('30');
  await settings.getByLabel('Monthly recipient cap').fill('4');
  await settings.getByLabel('Random delay (seconds)').fill('5');
  await settings.getByRole('button', { name: 'Save changes' }).click();
  await expect(page.getByText('Phone saved')).toBeVisible();
  const meters = page.getByRole('region', { name: 'Usage under its caps' });
  await expect(meters).toContainText('Recipients this month0 of 4');
  await expect(meters).toContainText('This hour0 of 30');
  await expect(meters).toContainText('up to 5 s between two of its messages');

  // A bulk of 8 through the default group: 4 new numbers for each phone, each at its cap.
  await navigate(page, 'Messages');
  await page.getByRole('link', { name: /bulk, CSV upload/ }).click();
  const base = 14155554000 + (Date.now() % 900);
  const numbers = Array.from({ length: 8 }, (_, i) => `+${base + i}`);
  await page.getByLabel(/Numbers in E\.164/).fill(numbers.join('\n'));
  const groups = (await (await request.get('/api/v1/phone-groups', { headers })).json()).data as Array<{
    id: number;
    is_default: boolean;
  }>;
  const defaultGroup = groups.find((group) => group.is_default)!;
  await page.getByLabel('Send from').selectOption(`group:${defaultGroup.id}`);
  await page.getByLabel('Message', { exact: true }).fill('Spring sale: 20% off this week.');
  await page.getByRole('button', { name: 'Preview cost' }).click();
  const preview = page.getByRole('region', { name: 'Preview' });
  await preview.getByRole('button', { name: 'Send 8 message(s)' }).click();
  await expect(page).toHaveURL(/\/dashboard\/messages\/bulk\?bulk=/);
  await expect(page.getByTestId('bulk-finish')).toContainText(/Handed to the phones in .*done by \d\d:\d\d/);
  await check(page, 'quotas-bulk-progress');
  const bulkId = new URL(page.url()).searchParams.get('bulk');
  const bulk = await (await request.get(`/api/v1/bulk-messages/${bulkId}`, { headers })).json();
  expect(bulk.estimated_completion_at).toEqual(expect.any(String));

  // The first phone's meters show its month's recipients at the cap, and the list flags both phones.
  await navigate(page, 'Phones');
  const table = page.getByRole('table');
  await expect(table.getByRole('row', { name: new RegExp(first.phone.replace('+', '\\+')) })).toContainText(
    'Near a cap',
  );
  await expect(table.getByRole('row', { name: new RegExp(second.phone.replace('+', '\\+')) })).toContainText(
    'Near a cap',
  );
  await check(page, 'quotas-phones');
  await page.getByRole('link', { name: first.phone }).click();
  // The page asks for the phone again on opening: room for a loaded machine.
  await expect(meters).toContainText('Recipients this month4 of 4', { timeout: 15_000 });
  await expect(meters).toContainText('near its cap');
  await check(page, 'quotas-phone');

  // A fifth new number from the first phone is refused, naming the phone, its cap and when it resets.
  const refused = await request.post('/api/v1/messages', {
    headers,
    data: { from: first.phone, to: `+${base + 50}`, content: 'One more' },
  });
  expect(refused.status()).toBe(422);
  const problem = await refused.json();
  expect(problem.code).toBe('RECIPIENT_QUOTA_REACHED');
  expect(problem.detail).toContain(first.phone);
});
