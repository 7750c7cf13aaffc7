import { renderToStaticMarkup } from 'react-dom/server';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { GET as inbox } from '@/app/api/dev/inbox/route';
import { POST as requestCode } from '@/app/api/v1/auth/sign-in/request-code/route';
import { POST as registerDevice } from '@/app/api/v1/phones/register-device/route';
import DevInboxPage from '@/app/dev/inbox/page';
import { deliverToDevInbox } from '@/lib/dev-inbox/store';
import { createTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

let account: TestAccount;
beforeAll(async () => {
  account = await createTestAccount(db());
});
afterEach(() => {
  vi.unstubAllEnvs();
});

type Entry = {
  channel: string;
  to: string;
  subject: string | null;
  text: string;
  code: string | null;
  created_at: string;
};

function renderPage(searchParams: Record<string, string> = {}) {
  return DevInboxPage({ searchParams: Promise.resolve(searchParams) }).then((element) => renderToStaticMarkup(element));
}

/** Server mode is chosen by DATABASE_URL; the test database stays installed either way. */
function serverMode() {
  vi.stubEnv('DATABASE_URL', 'postgres://server-mode.invalid/simgate');
}

describe('GET /api/dev/inbox', () => {
  it('lists codes sent by SMS and email, newest first, in the documented shape', async () => {
    const phoneNumber = testNumber();
    expect((await call(registerDevice, { body: { phone_number: phoneNumber } })).status).toBe(201);
    expect((await call(requestCode, { body: { email: account.email } })).status).toBe(202);

    // The sign-in email goes out after the answer.
    const res = await vi.waitFor(
      async () => {
        const listed = await call<{ data: Entry[] }>(inbox, { path: '/api/dev/inbox' });
        if (listed.body.data?.[0]?.channel !== 'email') throw new Error('the email is not in the inbox yet');
        return listed;
      },
      { timeout: 5_000, interval: 10 },
    );
    expect(res.status).toBe(200);
    expect(res.contentType).toBe('application/json');
    const [newest, previous] = res.body.data;
    expect(newest).toEqual({
      channel: 'email',
      to: account.email,
      subject: expect.stringContaining(newest!.code!),
      text: expect.stringContaining(newest!.code!),
      code: expect.stringMatching(/^\d{6}$/),
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
    });
    expect(previous).toMatchObject({ channel: 'sms', to: phoneNumber, subject: null, code: expect.any(String) });
    expect(Date.parse(newest!.created_at)).toBeGreaterThanOrEqual(Date.parse(previous!.created_at));
  });

  it('filters by recipient (a + left unencoded in the URL still matches) and limits', async () => {
    const phoneNumber = testNumber();
    for (let i = 0; i < 3; i++) await deliverToDevInbox(db(), { channel: 'sms', to: phoneNumber, text: `n${i}` });
    await deliverToDevInbox(db(), { channel: 'email', to: 'someone@example.test', subject: 's', text: 'hello' });

    const encoded = await call<{ data: Entry[] }>(inbox, {
      path: `/api/dev/inbox?to=${encodeURIComponent(phoneNumber)}`,
    });
    expect(encoded.body.data.map((e) => e.text)).toEqual(['n2', 'n1', 'n0']);
    const raw = await call<{ data: Entry[] }>(inbox, { path: `/api/dev/inbox?to=${phoneNumber}&limit=2` });
    expect(raw.body.data.map((e) => e.text)).toEqual(['n2', 'n1']);
    const email = await call<{ data: Entry[] }>(inbox, { path: '/api/dev/inbox?to=SomeOne@Example.test' });
    expect(email.body.data).toEqual([expect.objectContaining({ channel: 'email', text: 'hello', code: null })]);
  });

  it('answers 400 for a bad limit', async () => {
    for (const query of ['limit=0', 'limit=201', 'limit=abc']) {
      const res = await call(inbox, { path: `/api/dev/inbox?${query}` });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    }
  });

  it('answers 404 in server mode, whatever the query, unless DEV_INBOX=1', async () => {
    serverMode();
    for (const path of ['/api/dev/inbox', '/api/dev/inbox?limit=0']) {
      const res = await call(inbox, { path });
      expect(res.status).toBe(404);
      expect(res.contentType).toBe('application/problem+json');
      expect(res.body.code).toBe('NOT_FOUND');
    }
    vi.stubEnv('DEV_INBOX', '1');
    expect((await call(inbox, { path: '/api/dev/inbox' })).status).toBe(200);
  });
});

describe('the /dev/inbox page', () => {
  it('shows the inbox as a table with the codes', async () => {
    const phoneNumber = testNumber();
    await deliverToDevInbox(db(), { channel: 'sms', to: phoneNumber, text: 'Your code is 482913', code: '482913' });
    const html = await renderPage();
    expect(html).toContain('<h1');
    expect(html).toContain('Dev inbox');
    expect(html).toContain('<table');
    expect(html).toContain('<th scope="col"');
    expect(html).toContain(phoneNumber);
    expect(html).toContain('482913');
    expect(html).toMatch(/<label[^>]*for="inbox-to"/);
  });

  it('filters by recipient and shows an empty state when nothing matches', async () => {
    const html = await renderPage({ to: 'nobody-here@example.test' });
    expect(html).toContain('Nothing here yet');
    expect(html).not.toContain('<table');
    expect(html).toContain('value="nobody-here@example.test"');
  });

  it('is not found in server mode unless DEV_INBOX=1', async () => {
    serverMode();
    await expect(renderPage()).rejects.toMatchObject({ digest: expect.stringContaining('404') });
    vi.stubEnv('DEV_INBOX', '1');
    expect(await renderPage()).toContain('Dev inbox');
  });
});
