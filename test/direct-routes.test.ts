import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GET as appEvents } from '@/app/api/mobile/v1/events/route';
import { POST as claim } from '@/app/api/v1/device/outbox/claim/route';
import { ROUTES } from '@/app/route-index';
import { principalForKey } from '@/lib/auth/key-lookup';
import { json } from '@/lib/http/route';
import { heldBodies } from '@/lib/net/held-body';
import type { DirectHandler, HeldBodies } from '@/lib/runtime/lifecycle';
import { directRoutes } from '@/lib/server/direct-routes';
import { urlPathOf } from '@/scripts/route-index';
import { createTestAccount } from './fixtures';
import { withTestDatabase } from './setup-db';

const { db } = withTestDatabase();

type ServeDirect = (
  handler: DirectHandler,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  authority: string,
  params?: Record<string, string>,
  held?: HeldBodies | null,
) => Promise<void>;

let serveDirect: ServeDirect;
let server: http.Server;
let port = 0;
let current: DirectHandler = async () => new Response(null, { status: 204 });
let currentParams: Record<string, string> = {};
let currentHeld: HeldBodies | null = null;

beforeAll(async () => {
  const file = pathToFileURL(path.resolve(import.meta.dirname, '..', 'scripts', 'serve.mjs')).href;
  ({ serveDirect } = (await import(file)) as { serveDirect: ServeDirect });
  server = http.createServer(
    (req, res) => void serveDirect(current, req, res, `127.0.0.1:${port}`, currentParams, currentHeld),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

// Both ways the lane builds a Request and writes a Response: web streams around the bodies, and the
// app's held bodies (lib/net/held-body.ts), which `npm start` uses.
describe.each([
  ['with web streams', null],
  ['with held bodies', heldBodies],
])("npm start's direct lane (scripts/serve.mjs serveDirect), %s", (_lane, held) => {
  beforeAll(() => {
    currentHeld = held;
  });

  it('hands the route a web Request (method, path, headers, body) and writes its Response', async () => {
    let seen: { method: string; url: string; key: string | null; body: unknown; params: unknown } | undefined;
    currentParams = { id: 'p1' };
    current = async (req, context) => {
      seen = {
        method: req.method,
        url: req.url,
        key: req.headers.get('x-api-key'),
        body: await req.json(),
        params: await context.params,
      };
      return new Response(JSON.stringify({ ok: true }), {
        status: 201,
        headers: { 'content-type': 'application/json', 'x-request-id': 'r1' },
      });
    };
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/device/outbox/claim?wait=3`, {
      method: 'POST',
      headers: { 'x-api-key': 'dk_x', 'content-type': 'application/json' },
      body: JSON.stringify({ limit: 2 }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-request-id')).toBe('r1');
    expect(await res.json()).toEqual({ ok: true });
    expect(seen).toEqual({
      method: 'POST',
      url: `http://127.0.0.1:${port}/api/v1/device/outbox/claim?wait=3`,
      key: 'dk_x',
      body: { limit: 2 },
      params: { id: 'p1' },
    });
    // Behind a proxy that says it was https, the URL is https, as Next makes it.
    await fetch(`http://127.0.0.1:${port}/x`, {
      method: 'POST',
      headers: { 'x-forwarded-proto': 'https', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(seen?.url).toBe(`https://127.0.0.1:${port}/x`);
  });

  it('hands over a body in bytes or as a stream alike: small, large, chunked', async () => {
    current = async (req) => new Response(String((await req.text()).length), { status: 200 });
    const post = (body: BodyInit, init: RequestInit = {}) =>
      fetch(`http://127.0.0.1:${port}/x`, { method: 'POST', body, ...init }).then((res) => res.text());
    expect(await post('{"a":1}')).toBe('7');
    expect(await post('y'.repeat(200_000))).toBe('200000');
    const chunked = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(new TextEncoder().encode('ab'));
        controller.enqueue(new TextEncoder().encode('cd'));
        controller.close();
      },
    });
    expect(await post(chunked, { duplex: 'half' } as RequestInit)).toBe('4');
    // A client that hangs up mid-body: the handler still runs, and finds the body cut short.
    let read: string | undefined;
    current = async (req) => {
      read = await req.text().then(
        () => 'read',
        () => 'failed',
      );
      return new Response(null, { status: 204 });
    };
    const arrived = new Promise((resolve) => server.once('request', resolve));
    const socket = net.connect(port, '127.0.0.1');
    socket.write('POST /x HTTP/1.1\r\nhost: localhost\r\ncontent-length: 100\r\n\r\n0123456789');
    await arrived;
    socket.destroy();
    await expect.poll(() => read, { timeout: 5000 }).toBe('failed');
  });

  it("writes the app's JSON answers (held or streamed) with their headers and a Content-Length", async () => {
    current = async (req) => json({ echoed: await req.json(), signalled: req.signal.aborted }, 201, { 'x-one': '1' });
    const res = await fetch(`http://127.0.0.1:${port}/x`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'é' }),
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('x-one')).toBe('1');
    expect(res.headers.get('content-type')).toBe('application/json');
    const text = await res.text();
    expect(Number(res.headers.get('content-length'))).toBe(Buffer.byteLength(text));
    expect(JSON.parse(text)).toEqual({ echoed: { name: 'é' }, signalled: false });
  });

  it('writes a long body no faster than the client reads it', async () => {
    let pulled = 0;
    const chunk = new Uint8Array(64 * 1024);
    current = async () =>
      new Response(
        new ReadableStream<Uint8Array>({
          pull(controller) {
            if (++pulled > 800) controller.close();
            else controller.enqueue(chunk);
          },
        }),
        { headers: { 'content-type': 'application/octet-stream' } },
      );
    const socket = net.connect(port, '127.0.0.1');
    socket.pause();
    socket.write('GET /x HTTP/1.1\r\nhost: localhost\r\n\r\n');
    // Until the pulls stop: without backpressure, all 50 MB at once.
    let last = -1;
    await expect
      .poll(
        () => {
          const settled = pulled > 0 && pulled === last;
          last = pulled;
          return settled;
        },
        { interval: 300, timeout: 15_000 },
      )
      .toBe(true);
    expect(pulled).toBeLessThan(800);
    socket.destroy();
  });

  it('writes a streamed body as it comes, and ends the stream and aborts the request when the client hangs up', async () => {
    let aborted = false;
    let cancelled = false;
    let push: (text: string) => void = () => {};
    current = async (req) => {
      req.signal.addEventListener('abort', () => {
        aborted = true;
      });
      const stream = new ReadableStream<Uint8Array>({
        start(controller) {
          push = (text) => controller.enqueue(new TextEncoder().encode(text));
          push('event: first\n\n');
        },
        cancel() {
          cancelled = true;
        },
      });
      return new Response(stream, { status: 200, headers: { 'content-type': 'text/event-stream' } });
    };
    const client = new AbortController();
    const res = await fetch(`http://127.0.0.1:${port}/api/mobile/v1/events`, { signal: client.signal });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    expect(decoder.decode((await reader.read()).value)).toBe('event: first\n\n');
    push('event: second\n\n');
    expect(decoder.decode((await reader.read()).value)).toBe('event: second\n\n');
    client.abort();
    await expect.poll(() => aborted && cancelled, { timeout: 5000 }).toBe(true);
  });
});

describe('the direct routes', () => {
  const saved = process.env.PHONE_CONNECTS_PER_S;
  afterEach(() => {
    if (saved === undefined) delete process.env.PHONE_CONNECTS_PER_S;
    else process.env.PHONE_CONNECTS_PER_S = saved;
  });

  it('are every route of the index that route() guards, by method and path, the open ones paced', () => {
    const route = directRoutes();
    const phoneConnections = ['POST /api/v1/device/outbox/claim', 'GET /api/mobile/v1/events'];
    for (const { path, module } of ROUTES) {
      const pathname = path.replace(/\{[^}]+\}/g, 'p1');
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
        const exported = (module as Record<string, unknown>)[method];
        const found = route(method, pathname);
        // Only the phones' open connections are closed with their answers at shutdown (scripts/serve.mjs).
        if (found)
          expect(found.phoneConnection, `${method} ${path}`).toBe(
            phoneConnections.includes(`${method} ${path}`) || undefined,
          );
        // The dev inbox is the proxy's (proxy.ts): it stays on Next's lane.
        if (exported === undefined || path === '/api/dev/inbox') expect(found, `${method} ${path}`).toBeUndefined();
        else if (`${method} ${path}` === 'POST /api/v1/device/outbox/claim') expect(found?.handler).not.toBe(claim);
        else if (`${method} ${path}` === 'GET /api/mobile/v1/events') expect(found?.handler).not.toBe(appEvents);
        else expect(found?.handler, `${method} ${path}`).toBe(exported);
      }
    }
  });

  it('match paths as Next does: static names first, params decoded, the /3rdparty/v1 alias, the rest to Next', () => {
    const route = directRoutes();
    // Only POST is exported: Next answers the GET 405, not as /api/v1/phones/{id}.
    expect(route('GET', '/api/v1/phones/register-device')).toBeUndefined();
    expect(route('POST', '/api/v1/phones/register-device')?.params).toEqual({});
    expect(route('GET', '/api/v1/phones/abc')?.params).toEqual({ id: 'abc' });
    expect(route('DELETE', '/api/v1/opt-outs/%2B14155550100')?.params).toEqual({ phone: '+14155550100' });
    // In the order of their segments, which lib/http/route.ts `routePattern` relies on.
    expect(Object.entries(route('GET', '/api/v1/webhooks/w1/deliveries/d1')?.params ?? {})).toEqual([
      ['id', 'w1'],
      ['delivery_id', 'd1'],
    ]);
    expect(route('GET', '/3rdparty/v1/messages/m1')?.handler).toBe(
      route('GET', '/api/3rdparty/v1/messages/m1')?.handler,
    );
    expect(route('GET', '/2010-04-01/Accounts/AC1/Messages/SM1')?.params).toEqual({
      accountSid: 'AC1',
      messageSid: 'SM1',
    });
    expect(route('GET', '/.well-known/api-catalog')).toBeDefined();
    for (const [method, path] of [
      ['GET', '/api/v1/messages/'], // Next redirects a trailing slash
      ['GET', '/api/v1//messages'],
      ['GET', '/api/v1/phones/%E0%A4%A'], // malformed: Next answers 400
      ['GET', '/api/v1/phones/a%2Fb'],
      ['GET', '/api/v1/no-such-thing'], // the catch-all's 404, on Next
      ['HEAD', '/api/v1/messages'], // Next derives HEAD and OPTIONS
      ['OPTIONS', '/api/v1/messages'],
      ['GET', '/api/auth/session'],
      ['GET', '/dashboard'],
      ['GET', '/api/dev/inbox'],
      ['POST', '/api/bench/direct'], // only with BENCH=1
    ]) {
      expect(route(method!, path!), `${method} ${path}`).toBeUndefined();
    }
  });

  it('leave every route file the index does not hold to Next: none hides behind a param of the lane', () => {
    const route = directRoutes();
    const indexed = new Set(ROUTES.map(({ path }) => path));
    const files = fs.readdirSync(path.resolve(import.meta.dirname, '..', 'app'), { recursive: true, encoding: 'utf8' });
    const others = files
      .filter((file) => file.endsWith(`${path.sep}route.ts`) && !file.includes('[...'))
      .map((file) => urlPathOf(`app/${file.split(path.sep).join('/')}`))
      .filter((urlPath) => !indexed.has(urlPath));
    expect(others).toContain('/api/3rdparty/v1/message');
    for (const urlPath of others) {
      for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
        expect(route(method, urlPath.replace(/\{[^}]+\}/g, 'p1')), `${method} ${urlPath}`).toBeUndefined();
      }
    }
  });

  const noParams = { params: Promise.resolve({}) };
  const claimRequest = (key?: string) =>
    new Request('http://localhost/api/v1/device/outbox/claim', {
      method: 'POST',
      headers: { host: 'localhost', ...(key ? { 'x-api-key': key } : {}) },
    });

  /**
   * Requests of one device at once, its key already in the cache: the budget, at a few a second,
   * does not refill between them, and they are admitted in the order they were made.
   */
  async function together(key: string, requests: (() => Promise<Response>)[]) {
    await principalForKey(db(), key);
    return Promise.all(requests.map((request) => request()));
  }

  it('turn away phones past PHONE_CONNECTS_PER_S with 429 and a Retry-After of 1–10 s, before any other work', async () => {
    process.env.PHONE_CONNECTS_PER_S = '2';
    const phone = await createTestAccount(db(), { credits: 5 });
    const route = directRoutes();
    const claimDirect = route('POST', '/api/v1/device/outbox/claim')!.handler;
    const eventsDirect = route('GET', '/api/mobile/v1/events')!.handler;
    const claimOnce = () => claimDirect(claimRequest(phone.deviceKey), noParams);
    const openEvents = () =>
      eventsDirect(
        new Request('http://localhost/api/mobile/v1/events', {
          headers: { host: 'localhost', authorization: `Bearer ${phone.deviceKey}` },
        }),
        noParams,
      );
    const [first, second, refused, app] = await together(phone.deviceKey, [
      claimOnce,
      claimOnce,
      claimOnce,
      openEvents,
    ]);
    expect([first!.status, second!.status]).toEqual([200, 200]);
    expect(refused!.status).toBe(429);
    const retryAfter = Number(refused!.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(retryAfter).toBeLessThanOrEqual(10);
    expect((await refused!.json()).code).toBe('RATE_LIMITED');
    // The SMSGate app's surface answers as the app reads errors.
    expect(app!.status).toBe(429);
    expect(app!.headers.get('content-type')).toBe('application/json');
    expect((await app!.json()).message).toMatch(/Too many phones/);
  });

  it('spend none of the budget on requests without a device’s key: a flood of wrong keys turns no phone away', async () => {
    process.env.PHONE_CONNECTS_PER_S = '2';
    const phone = await createTestAccount(db(), { credits: 5 });
    const claimDirect = directRoutes()('POST', '/api/v1/device/outbox/claim')!.handler;
    const unknown = `dk_${'x'.repeat(40)}`;
    const wrongKeys = [undefined, 'dk_not_a_key', unknown, `dk_${'y'.repeat(40)}`, phone.apiKey];
    const answers = await Promise.all(
      Array.from({ length: 100 }, (_, i) => claimDirect(claimRequest(wrongKeys[i % wrongKeys.length]), noParams)),
    );
    const statuses = answers.map((answer) => answer.status);
    expect(statuses.filter((status) => status === 429)).toEqual([]);
    expect(new Set(statuses)).toEqual(new Set([401, 403]));
    // The phone's own claims still find the whole budget.
    const claimOnce = () => claimDirect(claimRequest(phone.deviceKey), noParams);
    const own = await together(phone.deviceKey, [claimOnce, claimOnce, claimOnce]);
    expect(own.map((answer) => answer.status)).toEqual([200, 200, 429]);
  });
});
