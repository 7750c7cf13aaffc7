import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { GET as appEvents } from '@/app/api/mobile/v1/events/route';
import { POST as claim } from '@/app/api/v1/device/outbox/claim/route';
import { principalForKey } from '@/lib/auth/key-lookup';
import type { DirectHandler } from '@/lib/runtime/lifecycle';
import { directRoutes } from '@/lib/server/direct-routes';
import { createTestAccount } from './fixtures';
import { withTestDatabase } from './setup-db';

const { db } = withTestDatabase();

type ServeDirect = (
  handler: DirectHandler,
  req: http.IncomingMessage,
  res: http.ServerResponse,
  port: number,
) => Promise<void>;

let serveDirect: ServeDirect;
let server: http.Server;
let port = 0;
let current: DirectHandler = async () => new Response(null, { status: 204 });

beforeAll(async () => {
  const file = pathToFileURL(path.resolve(import.meta.dirname, '..', 'scripts', 'serve.mjs')).href;
  ({ serveDirect } = (await import(file)) as { serveDirect: ServeDirect });
  server = http.createServer((req, res) => void serveDirect(current, req, res, port));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

describe("npm start's direct lane (scripts/serve.mjs serveDirect)", () => {
  it('hands the route a web Request (method, path, headers, body) and writes its Response', async () => {
    let seen: { method: string; url: string; key: string | null; body: unknown } | undefined;
    current = async (req) => {
      seen = { method: req.method, url: req.url, key: req.headers.get('x-api-key'), body: await req.json() };
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
      url: `http://localhost:${port}/api/v1/device/outbox/claim?wait=3`,
      key: 'dk_x',
      body: { limit: 2 },
    });
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

  it('are the routes whose requests stay open, with their own handlers', () => {
    const routes = directRoutes();
    expect([...routes.keys()].sort()).toEqual(['GET /api/mobile/v1/events', 'POST /api/v1/device/outbox/claim']);
    expect(routes.get('POST /api/v1/device/outbox/claim')).toBeTypeOf('function');
    expect(claim).toBeTypeOf('function');
    expect(appEvents).toBeTypeOf('function');
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
    const routes = directRoutes();
    const claimDirect = routes.get('POST /api/v1/device/outbox/claim')!;
    const eventsDirect = routes.get('GET /api/mobile/v1/events')!;
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
    const claimDirect = directRoutes().get('POST /api/v1/device/outbox/claim')!;
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
