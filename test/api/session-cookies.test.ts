import { afterEach, describe, expect, it } from 'vitest';
import { GET, POST } from '@/app/api/auth/[...nextauth]/route';
import { createTestAccount } from '../fixtures';
import { authRequest } from '../next-auth-request';
import { withTestDatabase } from '../setup-db';

const { db } = withTestDatabase();

afterEach(() => {
  delete process.env.APP_URL;
  delete process.env.NEXTAUTH_URL;
});

/** Signs in with an API key through next-auth itself; answers the Set-Cookie lines it sends. */
async function signInCookies(host: string): Promise<string[]> {
  const account = await createTestAccount(db());
  const csrf = authRequest('/api/auth/csrf', { host });
  const csrfRes = await GET(csrf.req, csrf.context);
  const { csrfToken } = (await csrfRes.json()) as { csrfToken: string };
  const csrfCookie = csrfRes.headers.getSetCookie().map((line) => line.split(';')[0]!.split('='));
  const callback = authRequest('/api/auth/callback/api-key', {
    method: 'POST',
    host,
    body: new URLSearchParams({ csrfToken, key: account.apiKey, json: 'true' }),
    cookies: csrfCookie.map(([name, ...value]) => ({ name: name!, value: decodeURIComponent(value.join('=')) })),
  });
  const res = await POST(callback.req, callback.context);
  expect(res.status).toBeLessThan(400);
  return res.headers.getSetCookie();
}

const sessionCookieOf = (lines: string[]) => lines.find((line) => /next-auth\.session-token=/.test(line));

describe('the session cookie', () => {
  it('is HttpOnly and SameSite=Lax', async () => {
    const cookie = sessionCookieOf(await signInCookies('localhost:3000'));
    expect(cookie).toMatch(/^next-auth\.session-token=/);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
  });

  it('is Secure (and __Secure- named) when APP_URL is https', async () => {
    process.env.APP_URL = 'https://sms.example.com';
    process.env.NEXTAUTH_URL = 'https://sms.example.com';
    const cookie = sessionCookieOf(await signInCookies('sms.example.com'));
    expect(cookie).toMatch(/^__Secure-next-auth\.session-token=/);
    expect(cookie).toMatch(/; Secure/i);
    expect(cookie).toMatch(/HttpOnly/i);
    expect(cookie).toMatch(/SameSite=Lax/i);
  });
});
