import fs from 'node:fs';
import path from 'node:path';
import { NextRequest } from 'next/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as unknownIntegratorPath from '@/app/api/3rdparty/v1/[...unknown]/route';
import { GET as live } from '@/app/api/health/live/route';
import { GET as health } from '@/app/api/health/route';
import * as unknownAppPath from '@/app/api/mobile/v1/[...unknown]/route';
import * as unknownPath from '@/app/api/v1/[...unknown]/route';
import { ANY_HOST, apiSecurityHeaders, guardedByRoute, leftByProxy } from '@/lib/http/front-door';
import type { RouteHandler } from '@/lib/http/route';
import { PEER_HEADER, PEER_TOKEN_ENV, SECURED_BY_HOST } from '@/lib/net/host-policy';
import { HTTP_METHODS } from '@/lib/openapi/document';
import nextConfig from '@/next.config';
import { config as proxyConfig } from '@/proxy';
import { urlPathOf } from '@/scripts/route-index';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';

withTestDatabase();

afterEach(() => {
  vi.unstubAllEnvs();
});

/** proxy.ts's matcher as Next reads it: a path pattern over the whole pathname. */
const matcher = new RegExp(`^${proxyConfig.matcher[0]}$`);

/** Every route module on disk under app (`app/api/v1/phones/[id]/route.ts`). */
function routeFiles(dir = 'app'): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return routeFiles(file);
    return entry.name === 'route.ts' ? [file.split(path.sep).join('/')] : [];
  });
}

const routePaths = () => routeFiles().map(urlPathOf);

function answerFor(handler: RouteHandler, urlPath: string, host: string): Promise<Response> {
  const pathname = urlPath.replace(/\{[^}]+\}/g, 'x');
  return handler(new NextRequest(`http://${host}${pathname}`, { headers: { host } }), {
    params: Promise.resolve({}),
  });
}

describe('the front door: the Host check and the security headers, in the proxy or in route()', () => {
  it('the proxy leaves out exactly the APIs (and the benchmark), which route() guards itself', () => {
    const samples = [
      ...routePaths(),
      '/api/v1/no-such-thing',
      '/api/healthz',
      '/api/health/x',
      '/api/health/live/x',
      '/api/v10/phones',
      '/api/dev/inbox',
      '/dashboard',
      '/sign-in',
      '/3rdparty/v1/message',
      '/3rdparty/v2/message',
      '/api/mobile/v1/no-such-thing',
      '/api/mobile/device',
      '/api/3rdparty/v1/x/y',
      '/api/auth/session',
      '/',
    ];
    for (const pathname of samples) {
      expect(matcher.test(pathname), pathname).toBe(!leftByProxy(pathname));
    }
    expect(matcher.test('/_next/static/chunks/a.js')).toBe(false);
  });

  it('serves the integrator API at /3rdparty/v1 by one rewrite to /api/3rdparty/v1, guarded at both paths', async () => {
    const rewrites = await nextConfig.rewrites!();
    expect(rewrites).toMatchObject({
      beforeFiles: [{ source: '/3rdparty/v1/:path+', destination: '/api/3rdparty/v1/:path+' }],
    });
    for (const pathname of ['/3rdparty/v1/message', '/api/3rdparty/v1/message']) {
      expect(guardedByRoute(pathname), pathname).toBe(true);
      expect(matcher.test(pathname), pathname).toBe(false);
    }
  });

  it('every handler the proxy leaves out but the benchmark’s refuses a rebound Host with 421, before any work', async () => {
    const guarded = routeFiles().filter((file) => guardedByRoute(urlPathOf(file)) && !ANY_HOST.has(urlPathOf(file)));
    expect(guarded.length).toBeGreaterThan(80);
    // The integrator API's handlers also answer at /3rdparty/v1 (next.config.ts rewrites it): both paths.
    const served = guarded.flatMap((file) => {
      const urlPath = urlPathOf(file);
      const alias = urlPath.startsWith('/api/3rdparty/v1/') ? [urlPath.slice('/api'.length)] : [];
      return [urlPath, ...alias].map((pathname) => ({ file, pathname }));
    });
    expect(served.length).toBeGreaterThan(90);
    let checked = 0;
    for (const { file, pathname } of served) {
      const module = (await import(`@/${file.replace(/\.ts$/, '')}`)) as Record<string, unknown>;
      for (const method of HTTP_METHODS.filter((m) => m in module)) {
        const res = await answerFor(module[method] as RouteHandler, pathname, 'attacker.example:3000');
        const where = `${method} ${pathname}`;
        expect(res.status, where).toBe(421);
        // SMSGate's surfaces answer errors as their clients read them (application/json, `message`),
        // the Twilio-compatible API in Twilio's error body (20000 + the status).
        const code = pathname.startsWith('/2010-04-01/') ? 20421 : 'MISDIRECTED_REQUEST';
        expect(await res.json(), where).toMatchObject({ status: 421, code });
        expect(res.headers.get('x-content-type-options'), where).toBe('nosniff');
        expect(res.headers.get('content-security-policy'), where).toBe("default-src 'none'; frame-ancestors 'none'");
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(120);
  });

  it('answers the app’s own names, and the health probes any name, with the API’s headers', async () => {
    vi.stubEnv('APP_URL', 'https://sms.example.com');
    for (const host of ['sms.example.com', 'localhost:3000', 'attacker.example']) {
      // Readiness answers 503 here (no server start in this test), but never 421.
      expect((await answerFor(health, '/api/health', host)).status, host).not.toBe(421);
      const res = await answerFor(live, '/api/health/live', host);
      expect(res.status, host).toBe(200);
      expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(res.headers.get('x-frame-options')).toBe('DENY');
      expect(res.headers.get('referrer-policy')).toBe('strict-origin-when-cross-origin');
      expect(res.headers.get('strict-transport-security')).toContain('max-age=');
    }
  });

  it('answers a path under /api/v1 that names no operation with 404 problem+json, not an HTML page', async () => {
    for (const [method, handler] of [
      ['GET', unknownPath.GET],
      ['POST', unknownPath.POST],
      ['DELETE', unknownPath.DELETE],
    ] as const) {
      const res = await call(handler, { method, path: '/api/v1/no-such-thing/x' });
      expect(res.status).toBe(404);
      expect(res.contentType).toBe('application/problem+json');
      expect(res.body).toMatchObject({ code: 'NOT_FOUND', detail: expect.stringContaining('/api/v1/no-such-thing/x') });
      expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    }
  });

  it('answers such a path of SMSGate’s surfaces with 404 as their clients read errors', async () => {
    for (const [handler, urlPath] of [
      [unknownAppPath.GET, '/api/mobile/v1/no-such-thing'],
      [unknownIntegratorPath.POST, '/3rdparty/v1/no-such-thing'],
    ] as const) {
      const res = await call(handler, { path: urlPath, method: 'GET' });
      expect(res.status).toBe(404);
      expect(res.contentType).toBe('application/json');
      expect(res.body).toMatchObject({ code: 'NOT_FOUND', message: expect.stringContaining(urlPath) });
    }
  });

  it('sets the headers on errors too, and judges a request without a Host by its URL', async () => {
    const { GET: phones } = await import('@/app/api/v1/phones/route');
    const res = await call(phones, { path: '/api/v1/phones' });
    expect(res.status).toBe(401);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('permissions-policy')).toContain('camera=()');
    expect(res.headers.get('strict-transport-security')).toBeNull();
  });

  it('leaves the headers to npm start’s server only when it vouches, with its token, for having set them', async () => {
    vi.stubEnv(PEER_TOKEN_ENV, 'secret-token');
    const { GET: phones } = await import('@/app/api/v1/phones/route');
    const as = (peer: string) => call(phones, { path: '/api/v1/phones', headers: { [PEER_HEADER]: peer } });
    const vouched = await as(`secret-token 127.0.0.1 ${SECURED_BY_HOST}`);
    expect(vouched.status).toBe(401);
    expect(vouched.headers.get('content-security-policy')).toBeNull();
    expect(vouched.headers.get('x-request-id')).toBeTruthy();
    for (const peer of [
      `guessed 127.0.0.1 ${SECURED_BY_HOST}`,
      'secret-token 127.0.0.1',
      `secret-token 127.0.0.1 other`,
    ]) {
      const res = await as(peer);
      expect(res.headers.get('content-security-policy'), peer).toBe("default-src 'none'; frame-ancestors 'none'");
      expect(res.headers.get('x-content-type-options'), peer).toBe('nosniff');
    }
  });

  it('hands npm start’s server the API’s headers, the same that route() sets', async () => {
    vi.stubEnv('APP_URL', 'https://sms.example.com');
    const res = await answerFor(live, '/api/health/live', 'sms.example.com');
    const set = Object.fromEntries(apiSecurityHeaders());
    expect(Object.keys(set).length).toBeGreaterThanOrEqual(7);
    for (const [name, value] of Object.entries(set)) expect(res.headers.get(name), name).toBe(value);
  });
});
