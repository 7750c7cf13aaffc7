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

test('Members: an owner invites a teammate as operator, who opens the link, signs in with a code and joins', async ({
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

    // The link is used now: opening it again says so.
    await invitee.goto(link);
    await expect(invitee.getByRole('alert')).toContainText('accepted already');
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
  await expect(page.getByRole('alert')).toContainText('revoked');
  await checkPage(page, 'invitation-revoked');
});
