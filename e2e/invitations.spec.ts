import { expect, type Page, test } from '@playwright/test';
import { activatePhone, checkPage, codeFor, navigate, signIn } from './helpers';

/** The invitation link the dev inbox holds for an email, polled with a bound (mail leaves after the answer). */
async function invitationLink(page: Page, email: string): Promise<string> {
  let link: string | undefined;
  await expect
    .poll(
      async () => {
        const inbox = (await (await page.request.get(`/api/dev/inbox?to=${encodeURIComponent(email)}`)).json()) as {
          data: Array<{ to: string; text: string }>;
        };
        link = inbox.data.find((mail) => mail.to === email)?.text.match(/https?:\/\/\S+\/invite\/[A-Za-z0-9_-]+/)?.[0];
        return link !== undefined;
      },
      { timeout: 10_000, message: `an invitation link for ${email} in the dev inbox` },
    )
    .toBe(true);
  return new URL(link as string).pathname;
}

test('Members: an owner invites a teammate as operator, who joins by the link and cannot open API keys', async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(90_000);
  const owner = `team-owner-${Date.now()}@example.test`;
  const teammate = `teammate-${Date.now()}@example.test`;
  await activatePhone(baseURL!, owner);
  await signIn(page, baseURL!, owner);
  await navigate(page, 'Members');

  const invitations = page.getByRole('region', { name: 'Invitations' });
  await invitations.getByLabel('Email to invite').fill(teammate);
  await invitations.getByLabel('Role').selectOption('operator');
  await invitations.getByRole('button', { name: 'Invite' }).click();
  const row = invitations.getByRole('row').filter({ hasText: teammate });
  await expect(row).toContainText('operator');
  await expect(row).toContainText('pending');
  await checkPage(page, 'members-invited');

  // Inviting the owner's own email is refused beside the field.
  await invitations.getByLabel('Email to invite').fill(owner);
  await invitations.getByRole('button', { name: 'Invite' }).click();
  await expect(invitations.getByText(`${owner} is already a member of this account.`)).toBeVisible();

  const link = await invitationLink(page, teammate);
  const context = await browser.newContext();
  try {
    const invitee = await context.newPage();
    await invitee.goto(link);
    await expect(invitee.getByTestId('invitation-summary')).toContainText(owner);
    await expect(invitee.getByTestId('invitation-summary')).toContainText('operator');
    await checkPage(invitee, 'invitation');
    await invitee.getByRole('button', { name: 'Email me a code' }).click();
    await invitee.getByRole('textbox', { name: 'Code' }).fill(await codeFor(baseURL!, teammate));
    await invitee.getByRole('button', { name: 'Join the account' }).click();
    await expect(invitee.getByTestId('account-email')).toHaveText(teammate);
    await expect(invitee.getByTestId('account-role')).toHaveText('operator');
    await checkPage(invitee, 'joined-as-operator');

    // An operator has no API keys: no link to them, and the page says which roles may.
    const nav = invitee.getByRole('navigation', { name: 'Dashboard' });
    await expect(nav.getByRole('link', { name: 'Contacts', exact: true, includeHidden: true })).toHaveCount(1);
    await expect(nav.getByRole('link', { name: 'API keys', exact: true, includeHidden: true })).toHaveCount(0);
    await invitee.goto('/dashboard/settings/api-keys');
    await expect(invitee.getByRole('region', { name: 'API keys' }).getByRole('alert')).toContainText(
      'Your role (operator) may not see API keys; an owner, admin or developer may.',
    );

    // The link is used now: opening it again says so.
    await invitee.goto(link);
    await expect(invitee.getByRole('alert').filter({ hasText: 'accepted already' })).toBeVisible();
  } finally {
    await context.close();
  }

  await page.reload();
  await expect(invitations.getByRole('row').filter({ hasText: teammate })).toHaveCount(0);
});

test('Members: a revoked invitation’s link says it was revoked', async ({ page, baseURL }) => {
  test.setTimeout(60_000);
  const owner = `revoker-${Date.now()}@example.test`;
  const invited = `revoked-${Date.now()}@example.test`;
  await activatePhone(baseURL!, owner);
  await signIn(page, baseURL!, owner);
  await page.goto('/dashboard/settings/members');
  const invitations = page.getByRole('region', { name: 'Invitations' });
  await invitations.getByLabel('Email to invite').fill(invited);
  await invitations.getByRole('button', { name: 'Invite' }).click();
  await expect(invitations.getByRole('row').filter({ hasText: invited })).toBeVisible();
  const link = await invitationLink(page, invited);

  await invitations.getByRole('button', { name: `Revoke the invitation of ${invited}` }).click();
  await page.getByRole('dialog').getByRole('button', { name: 'Revoke invitation' }).click();
  await expect(invitations.getByRole('row').filter({ hasText: invited })).toHaveCount(0);

  await page.goto(link);
  await expect(page.getByRole('alert').filter({ hasText: 'This invitation was revoked.' })).toBeVisible();
  await checkPage(page, 'invitation-revoked');
});

test('Accounts: someone with an account of their own joins another and switches between them in the header', async ({
  page,
  browser,
  baseURL,
}) => {
  test.setTimeout(90_000);
  const host = `host-${Date.now()}@example.test`;
  const guest = `guest-${Date.now()}@example.test`;
  await activatePhone(baseURL!, host);
  await activatePhone(baseURL!, guest);
  await signIn(page, baseURL!, host);
  await page.goto('/dashboard/settings/members');
  const invitations = page.getByRole('region', { name: 'Invitations' });
  await invitations.getByLabel('Email to invite').fill(guest);
  await invitations.getByLabel('Role').selectOption('viewer');
  await invitations.getByRole('button', { name: 'Invite' }).click();
  await expect(invitations.getByRole('row').filter({ hasText: guest })).toBeVisible();
  const link = await invitationLink(page, guest);

  const context = await browser.newContext();
  try {
    const guestPage = await context.newPage();
    await signIn(guestPage, baseURL!, guest);
    await expect(guestPage.getByTestId('account-role')).toHaveText('owner');
    // The code the guest signed in with is the newest: joining needs the next one.
    const earlier = await codeFor(baseURL!, guest);
    await guestPage.goto(link);
    await guestPage.getByRole('button', { name: 'Email me a code' }).click();
    await guestPage.getByRole('textbox', { name: 'Code' }).fill(await codeFor(baseURL!, guest, 'email', earlier));
    await guestPage.getByRole('button', { name: 'Join the account' }).click();
    await expect(guestPage.getByTestId('account-role')).toHaveText('viewer');

    const switcher = guestPage.getByRole('combobox', { name: 'Account' });
    const chosen = () => switcher.evaluate((select: HTMLSelectElement) => select.selectedOptions[0]?.textContent);
    await expect.poll(chosen).toBe(`${host} · viewer`);
    await checkPage(guestPage, 'account-switcher');
    await switcher.selectOption({ label: `${guest} · owner` });
    await expect(guestPage.getByTestId('account-role')).toHaveText('owner');
    await expect.poll(chosen).toBe(`${guest} · owner`);
  } finally {
    await context.close();
  }
});
