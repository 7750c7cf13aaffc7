import { createRequire } from 'node:module';
import { NextRequest } from 'next/server';
import { afterEach, vi } from 'vitest';

// next-auth reads cookies and headers from Next's request scope, which only `next start` sets up:
// here they come from the request itself.
const nextHeaders = createRequire(import.meta.url)('next/headers');
afterEach(() => {
  vi.restoreAllMocks();
});

export type AuthRequestInit = {
  method?: string;
  body?: BodyInit;
  sessionToken?: string;
  cookies?: Array<{ name: string; value: string }>;
  host?: string;
};

/** A request to next-auth's route handler as `next start` would hand it over. */
export function authRequest(path: string, init: AuthRequestInit = {}) {
  const host = init.host ?? 'localhost:3000';
  const headers = new Headers({ host });
  if (init.body) headers.set('content-type', 'application/x-www-form-urlencoded');
  const cookies = [
    ...(init.sessionToken ? [{ name: 'next-auth.session-token', value: init.sessionToken }] : []),
    ...(init.cookies ?? []),
  ];
  if (cookies.length) headers.set('cookie', cookies.map((c) => `${c.name}=${c.value}`).join('; '));
  vi.spyOn(nextHeaders, 'cookies').mockResolvedValue({ getAll: () => cookies });
  vi.spyOn(nextHeaders, 'headers').mockResolvedValue(headers);
  const url = new URL(path, `http://${host}`);
  const nextauth = url.pathname.replace('/api/auth/', '').split('/');
  const req = new NextRequest(url, { method: init.method ?? 'GET', headers, body: init.body });
  return { req, context: { params: Promise.resolve({ nextauth }) } };
}
