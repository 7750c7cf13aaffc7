import { expect, test } from '@playwright/test';
import { DeviceClient } from '../tools/device-sim/client';
import { activatePhone, checkPage as check, navigate, signIn, uniqueNumber } from './helpers';

test('automation: a keyword rule made in the dashboard, tried in the box, answers a message the simulator receives', async ({
  page,
  baseURL,
}) => {
  test.setTimeout(90_000);
  const email = `automation-${Date.now()}@example.test`;
  const device = await activatePhone(baseURL!, email);
  await signIn(page, baseURL!, email);
  await navigate(page, 'Automation');
  const rules = page.getByRole('region', { name: 'Inbound rules' });
  await expect(rules.getByText('No rules yet')).toBeVisible();
  await check(page, 'automation-empty');

  // A keyword rule, with a field error on the way.
  await rules.getByRole('button', { name: 'New rule' }).click();
  const form = page.getByRole('form', { name: 'New rule' });
  await form.getByLabel('Name').fill('Opening hours');
  await form.getByLabel('Starts with a keyword').check();
  await form.getByLabel('Keyword', { exact: true }).fill('hours');
  await form.getByLabel('Reply text').fill('Hi {{name}}');
  await form.getByRole('button', { name: 'Create rule' }).click();
  await expect(form.getByText(/unknown variable \{\{name\}\}/)).toBeVisible();
  await form.getByLabel('Reply text').fill('We are open 9-5, {{from}}.');
  await form.getByRole('button', { name: 'Create rule' }).click();
  await expect(rules.getByRole('listitem').filter({ hasText: 'Opening hours' })).toContainText('starts with “hours”');

  // A catch-all after it, moved first and back again from the keyboard.
  await rules.getByRole('button', { name: 'New rule' }).click();
  const second = page.getByRole('form', { name: 'New rule' });
  await second.getByLabel('Name').fill('Everything else');
  await second.getByLabel('Reply text').fill('Thanks, we will get back to you.');
  await second.getByRole('button', { name: 'Create rule' }).click();
  const order = rules.getByRole('list', { name: 'Rules in the order they run' }).getByRole('listitem');
  await expect(order).toHaveCount(2);
  await rules.getByRole('button', { name: 'Move Everything else up' }).focus();
  await page.keyboard.press('Enter');
  await expect(order.first()).toContainText('Everything else');
  await rules.getByRole('button', { name: 'Move Everything else down' }).focus();
  await page.keyboard.press('Enter');
  await expect(order.first()).toContainText('Opening hours');

  // The box beside the rules says what a message would do, as it is typed.
  const customer = uniqueNumber();
  await page.getByLabel('From').fill(customer);
  await page.getByLabel('Message').fill('HOURS please');
  const result = page.getByTestId('try-result');
  await expect(result).toContainText('Rule “Opening hours” matches');
  await expect(result).toContainText(`“We are open 9-5, ${customer}.”`);
  await page.getByLabel('Message').fill('something else');
  await expect(result).toContainText('Rule “Everything else” matches');
  await check(page, 'automation-rules');

  // A message the simulated phone receives is answered, and its page says so.
  const phone = new DeviceClient({ baseUrl: baseURL!, deviceKey: device.deviceKey });
  const inbound = await phone.receive({ from: customer, content: 'Hours?' });
  await page.goto(`/dashboard/messages/${inbound.id}`);
  const automation = page.getByRole('region', { name: 'Automation' });
  await expect(automation.getByRole('listitem')).toContainText('Reply');
  await expect(automation.getByRole('listitem')).toContainText('sent');
  await check(page, 'automation-inbound-message');
  await automation.getByRole('link', { name: 'view the message sent' }).click();
  await expect(page.getByRole('heading', { name: `To ${customer}` })).toBeVisible();
  await expect(page.getByText(`We are open 9-5, ${customer}.`)).toBeVisible();
  await expect(page.getByText('An inbound rule, answering')).toBeVisible();
  await check(page, 'automation-reply');

  // A forwarding address: added on the automation screen, confirmed through the emailed link.
  await page.goto('/dashboard/automation');
  const desk = `desk-${Date.now()}@example.test`;
  const addresses = page.getByRole('region', { name: 'Email addresses' });
  await addresses.getByLabel('Add an address').fill(desk);
  await addresses.getByRole('button', { name: 'Send confirmation' }).click();
  await expect(addresses.getByRole('listitem').filter({ hasText: desk })).toContainText('waiting for confirmation');
  let link: string | undefined;
  await expect
    .poll(
      async () => {
        const inbox = (await (await page.request.get('/api/dev/inbox')).json()) as {
          data: Array<{ to: string; text: string }>;
        };
        link = inbox.data.find((mail) => mail.to === desk)?.text.match(/https?:\/\/\S+\/confirm-email\?token=\S+/)?.[0];
        return link !== undefined;
      },
      { timeout: 10_000, message: `a confirmation link for ${desk} in the dev inbox` },
    )
    .toBe(true);
  await page.goto(new URL(link as string).pathname + new URL(link as string).search);
  await expect(page.getByRole('heading', { name: 'Forward text messages to this address?' })).toBeVisible();
  await check(page, 'confirm-email');
  await page.getByRole('button', { name: 'Confirm forwarding' }).click();
  await expect(page.getByRole('status')).toContainText(`Confirmed: ${desk}`);
  await check(page, 'confirm-email-done');
  await page.goto('/dashboard/automation');
  await expect(
    page.getByRole('region', { name: 'Email addresses' }).getByRole('listitem').filter({ hasText: desk }),
  ).toContainText('confirmed');
});
