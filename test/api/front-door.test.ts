import fs from 'node:fs';
import path from 'node:path';
import { NextRequest } from 'next/server';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GET as health } from '@/app/api/health/route';
import * as unknownPath from '@/app/api/v1/[...unknown]/route';
import { ROUTES } from '@/app/api/v1/openapi.json/routes';
import { guardedByRoute, LEFT_BY_PROXY } from '@/lib/http/front-door';
import type { RouteHandler } from '@/lib/http/route';
import { HTTP_METHODS } from '@/lib/openapi/document';
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

/** Every route module on disk under app/api, as its URL path (`/api/v1/phones/{id}`). */
function routePaths(dir = path.join('app', 'api')): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) return routePaths(file);
    return entry.name === 'route.ts' ? [urlPathOf(file.split(path.sep).join('/'))] : [];
  });
}

function answerFor(handler: RouteHandler, urlPath: string, host: string): Promise<Response> {
  const pathname = urlPath.replace(/\{[^}]+\}/g, 'x');
  return handler(new NextRequest(`http://${host}${pathname}`, { headers: { host } }), {
    params: Promise.resolve({}),
  });
}

describe('the front door: the Host check and the security headers, in the proxy or in route()', () => {
  it('the proxy leaves out exactly the API (and the benchmark), which route() guards itself', () => {
    const samples = [
      ...routePaths(),
      '/api/v1/no-such-thing',
      '/api/healthz',
      '/api/health/x',
      '/api/v10/phones',
      '/api/dev/inbox',
      '/dashboard',
      '/sign-in',
      '/3rdparty/v1/message',
      '/',
    ];
    for (const pathname of samples) {
      expect(matcher.test(pathname), pathname).toBe(!LEFT_BY_PROXY.test(pathname));
      if (guardedByRoute(pathname)) expect(LEFT_BY_PROXY.test(pathname), pathname).toBe(true);
    }
    expect(matcher.test('/_next/static/chunks/a.js')).toBe(false);
  });

  it('every handler the proxy leaves out but the benchmark’s refuses a rebound Host with 421, before any work', async () => {
    const guarded = routePaths().filter((urlPath) => LEFT_BY_PROXY.test(urlPath) && !urlPath.startsWith('/api/bench/'));
    expect(guarded.length).toBeGreaterThan(50);
    const indexed = new Map<string, Record<string, unknown>>(
      ROUTES.map(({ path: urlPath, module }) => [urlPath, module]),
    );
    indexed.set('/api/v1/{...unknown}', unknownPath);
    let checked = 0;
    for (const urlPath of guarded) {
      // Only route()'s handlers are indexed (scripts/route-index.ts): a module made otherwise is missing.
      // (The catch-all is route()'s too, but no operation, so it is not indexed.)
      const module = indexed.get(urlPath);
      expect(module, `${urlPath} is not built with route()`).toBeDefined();
      for (const method of HTTP_METHODS.filter((m) => m in (module ?? {}))) {
        const res = await answerFor(module?.[method] as RouteHandler, urlPath, 'attacker.example:3000');
        if (urlPath === '/api/health') continue;
        expect(res.status, `${method} ${urlPath}`).toBe(421);
        expect(await res.json()).toMatchObject({ status: 421, code: 'MISDIRECTED_REQUEST' });
        expect(res.headers.get('x-content-type-options'), `${method} ${urlPath}`).toBe('nosniff');
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(60);
  });

  it('answers the app’s own names, and the health check any name, with the API’s headers', async () => {
    vi.stubEnv('APP_URL', 'https://sms.example.com');
    for (const host of ['sms.example.com', 'localhost:3000', 'attacker.example']) {
      const res = await answerFor(health, '/api/health', host);
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

  it('sets the headers on errors too, and judges a request without a Host by its URL', async () => {
    const { GET: phones } = await import('@/app/api/v1/phones/route');
    const res = await call(phones, { path: '/api/v1/phones' });
    expect(res.status).toBe(401);
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('permissions-policy')).toContain('camera=()');
    expect(res.headers.get('strict-transport-security')).toBeNull();
  });
});
