import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROUTES } from '@/app/route-index';
import { activateDevice } from '@/tools/device-sim/activate';
import { DeviceClient } from '@/tools/device-sim/client';
import { built, type Running, startServer } from './start-server';

/**
 * `npm start`'s server calls the routes whose requests stay open itself (lib/server/direct-routes.ts,
 * ADR 0013): its pacing of phone connections, which only that lane applies, shows the dispatch.
 */
describe.runIf(built)("npm start's direct lane for open phone requests", () => {
  let server: Running;
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-direct-'));

  beforeAll(async () => {
    server = await startServer({ DATA_DIR: dataDir, PHONE_CONNECTS_PER_S: '1' });
  }, 120_000);

  afterAll(() => {
    server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves the claim and the event stream through route(), paced past PHONE_CONNECTS_PER_S', async () => {
    const claim = (key: string) =>
      fetch(`${server.baseUrl}/api/v1/device/outbox/claim`, {
        method: 'POST',
        headers: { 'x-api-key': key, 'content-type': 'application/json' },
        body: '{"limit":1}',
      });
    // route()'s answer: an unknown key, as problem+json with the API's headers. Unknown keys spend
    // no admission (lib/server/direct-routes.ts), so they cannot crowd real phones out.
    for (let i = 0; i < 3; i++) {
      const unknown = await claim('dk_unknownunknownunknownunknownunknown00');
      expect(unknown.status).toBe(401);
      expect(unknown.headers.get('content-type')).toContain('application/problem+json');
      expect(unknown.headers.get('x-request-id')).toBeTruthy();
      expect(unknown.headers.get('x-content-type-options')).toBe('nosniff');
    }
    const { deviceKey } = await activateDevice(new DeviceClient({ baseUrl: server.baseUrl }), {
      phone: '+14155557302',
      email: `direct-lane-${process.pid}@example.test`,
    });
    // One a second: a phone's next connection at once is told to come back later, before any work.
    const answers: number[] = [];
    for (let i = 0; i < 3 && !answers.includes(429); i++) answers.push((await claim(deviceKey)).status);
    expect(answers).toContain(200);
    expect(answers.at(-1)).toBe(429);
    const stream = await fetch(`${server.baseUrl}/api/mobile/v1/events`, {
      headers: { authorization: `Bearer ${deviceKey}` },
    });
    expect(stream.status).toBe(429);
    expect(Number(stream.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect((await stream.json()).message).toMatch(/Too many phones/);
    // Other routes go through Next as before, unpaced.
    for (let i = 0; i < 3; i++) expect((await fetch(`${server.baseUrl}/api/health/live`)).status).toBe(200);
  });
});

/** One request of the walk: the same on both lanes; `auth` names whose key it bears. */
type Step = {
  method: string;
  /** `{message}` stands for the id of the message the walk sent on that server. */
  path: string;
  /** Whether the direct lane serves it (a route of the index); Next does otherwise. */
  direct?: boolean;
  auth?: 'account' | 'device';
  headers?: Record<string, string>;
  body?: string;
};

/** What a lane answered, its volatile parts (ids, times, keys, its port) written as placeholders. */
type Answer = { step: string; status: number; headers: Record<string, string>; body: string };

const FIXED_ID = '00000000-0000-4000-8000-000000000000';

/** Headers of the transport, or of every answer with its own value: compared as present, not equal. */
const TRANSPORT = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length']);

function normalised(text: string): string {
  return (
    text
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, '<uuid>')
      .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)?/g, '<time>')
      .replace(/\b(sk|dk)_[A-Za-z0-9_-]+/g, '<key>')
      .replace(/\bwhsec_[A-Za-z0-9+/=]+/g, '<secret>')
      .replace(/\b(SM|AC|MG|PN|MM)[0-9a-f]{32}\b/g, '<sid>')
      .replace(/\b[0-9a-f]{32}\b/g, '<token>')
      .replace(/127\.0\.0\.1:\d+/g, '<host>')
      // Codes texted or emailed (the dev inbox), the health checks' timings.
      .replace(/\b\d{6}\b/g, '<code>')
      .replace(/"(observedValue|ms)":[\d.]+/g, '"$1":<n>')
  );
}

/**
 * A Vary header without the request headers of Next's own router (`rsc`, `next-router-*`), which it
 * names on every answer it routes and which no API client sends: the direct lane leaves them out.
 */
function withoutRouterTokens(vary: string): string {
  return vary
    .split(',')
    .map((token) => token.trim())
    .filter((token) => !/^(rsc|next-router-)/i.test(token))
    .join(', ');
}

/**
 * Every route of the index (app/route-index.ts), each method it exports, with no key, an account's
 * key and a device's key, a body that is no request of it (its validation answer), and a few
 * requests that reach the work: the walk the test below sends to both lanes.
 */
function walkOf(): Step[] {
  const steps: Step[] = [];
  const last: Step[] = [];
  for (const { path, module } of ROUTES) {
    const pathname = path.replace(/\{[^}]+\}/g, FIXED_ID);
    for (const method of ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']) {
      if (typeof (module as Record<string, unknown>)[method] !== 'function') continue;
      const hasBody = method !== 'GET' && method !== 'DELETE';
      const form = path.startsWith('/2010-04-01/');
      const body = hasBody ? (form ? 'To=x' : '{"unexpected":[1,2]}') : undefined;
      const headers: Record<string, string> = hasBody
        ? { 'content-type': form ? 'application/x-www-form-urlencoded' : 'application/json' }
        : {};
      // What ends the account's sessions or keys goes last, on both lanes alike.
      const into = path === '/api/v1/auth/sessions' || path.includes('auth-token') ? last : steps;
      // The dev inbox is the proxy's, on Next's lane (ADR 0014).
      const direct = path !== '/api/dev/inbox';
      for (const auth of [undefined, 'account', 'device'] as const) {
        into.push({ method, path: pathname, auth, headers, body, direct });
      }
      if (method === 'GET') into.push({ method, path: `${pathname}?limit=abc&cursor=%%`, auth: 'account', direct });
    }
  }
  steps.push(
    // The Host check (DNS rebinding), a request id passed on, a body past the limit, a malformed one.
    { method: 'GET', path: '/api/v1/messages', auth: 'account', headers: { host: 'rebound.example' }, direct: true },
    {
      method: 'GET',
      path: '/api/v1/credits/balance',
      auth: 'account',
      headers: { 'x-request-id': 'walk-1' },
      direct: true,
    },
    {
      method: 'POST',
      path: '/api/v1/messages',
      auth: 'account',
      headers: { 'content-type': 'application/json' },
      body: `{"content":"${'x'.repeat(1_100_000)}"}`,
      direct: true,
    },
    {
      method: 'POST',
      path: '/api/v1/messages',
      auth: 'account',
      headers: { 'content-type': 'application/json' },
      body: '{"to":',
      direct: true,
    },
    {
      method: 'POST',
      path: '/api/v1/messages',
      auth: 'account',
      headers: { 'content-type': 'text/plain' },
      body: 'x',
      direct: true,
    },
    // The integrator API at its second path, a param percent-encoded, what Next alone answers.
    { method: 'GET', path: '/3rdparty/v1/messages', auth: 'account', direct: true },
    { method: 'GET', path: `/3rdparty/v1/messages/${FIXED_ID}`, auth: 'account', direct: true },
    { method: 'DELETE', path: '/api/v1/opt-outs/%2B14155550199', auth: 'account', direct: true },
    { method: 'GET', path: '/api/v1/no-such-route', auth: 'account' },
    { method: 'GET', path: '/api/v1/messages/', auth: 'account' },
    { method: 'PUT', path: '/api/v1/messages', auth: 'account' },
    { method: 'HEAD', path: '/api/health' },
    { method: 'OPTIONS', path: '/api/v1/messages' },
    { method: 'GET', path: '/api/v1/phones/%E0%A4%A', auth: 'account' },
  );
  return [...steps, ...last];
}

/**
 * ADR 0014's contract: a route answers alike whichever lane serves it. Two servers of the same build,
 * one with the direct lane, one with every request through Next's router (SIMGATE_DIRECT_LANE=off),
 * each on its own new database, get the same requests in the same order; their answers (status,
 * headers, body) and what they count and log of them must be the same.
 */
describe.runIf(built)('every route of the index on both lanes', () => {
  let direct: Running;
  let next: Running;
  const dirs: string[] = [];
  const env = (off: boolean) => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-lanes-'));
    dirs.push(dataDir);
    return {
      DATA_DIR: dataDir,
      PHONE_CONNECTS_PER_S: '1000',
      LOG_LEVEL: 'debug',
      ...(off ? { SIMGATE_DIRECT_LANE: 'off' } : {}),
    };
  };

  beforeAll(async () => {
    [direct, next] = await Promise.all([startServer(env(false), false), startServer(env(true), false)]);
  }, 180_000);

  afterAll(() => {
    direct?.stop();
    next?.stop();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** An account with an API key and an activated phone, made alike on a server. */
  async function keysOf(server: Running): Promise<Known> {
    const activation = await activateDevice(new DeviceClient({ baseUrl: server.baseUrl }), {
      phone: '+14155557310',
      email: 'lanes@example.test',
      apiKeyName: 'walk',
    });
    return { account: activation.apiKey!, device: activation.deviceKey };
  }

  type Known = { account: string; device: string; message?: string };

  /** The answer, and whether Next's router made it (it names its own headers in Vary). */
  async function send(server: Running, keys: Known, step: Step): Promise<Answer & { viaNext: boolean }> {
    // As HTTP clients ask (fetch does): Next compresses what it routes, and so must the direct lane.
    const headers: Record<string, string> = { 'accept-encoding': 'gzip, deflate, br', ...step.headers };
    if (step.auth === 'account') headers['x-api-key'] = keys.account;
    if (step.auth === 'device') headers.authorization = `Bearer ${keys.device}`;
    const url = `${server.baseUrl}${step.path.replace('{message}', keys.message ?? FIXED_ID)}`;
    const res = await rawRequest(url, step.method, headers, step.body);
    // Next streams every answer it routes, so its compression middleware cannot see a length and
    // compresses even a few bytes; the direct lane writes a body in one piece with its length, and
    // the middleware leaves one under its threshold (1 KB) as it is. Clients read both alike.
    if (Buffer.byteLength(res.body) < 1024) delete res.headers['content-encoding'];
    return {
      viaNext: /next-router/.test(res.headers.vary ?? ''),
      step: `${step.method} ${step.path.slice(0, 120)} ${step.auth ?? ''}`,
      status: res.status,
      headers: Object.fromEntries(
        Object.entries(res.headers)
          .sort(([a], [b]) => (a < b ? -1 : 1))
          .filter(([name]) => !TRANSPORT.has(name))
          // A request id made by the server is a UUID (normalised); one the client sent is passed on as it is.
          .map(([name, value]) => [name, normalised(value as string)])
          .map(([name, value]) => [name, name === 'vary' ? withoutRouterTokens(value as string) : value])
          .filter(([, value]) => value !== ''),
      ),
      body: res.eventStream ? '<event stream>' : normalised(res.body),
    };
  }

  it('answers every request of the walk alike: status, headers, body; counted and logged alike', async () => {
    const [directKeys, nextKeys] = await Promise.all([keysOf(direct), keysOf(next)]);
    const differences: string[] = [];
    let compared = 0;
    let directly = 0;
    const compare = async (step: Step) => {
      const [{ viaNext: directViaNext, ...a }, { viaNext: nextViaNext, ...b }] = [
        await send(direct, directKeys, step),
        await send(next, nextKeys, step),
      ];
      compared++;
      if (JSON.stringify(a) !== JSON.stringify(b)) differences.push(differenceOf(a, b));
      // Each lane served what it should: the index's routes directly, the rest through Next, as the other server.
      if (step.direct) {
        directly++;
        if (directViaNext || !nextViaNext) differences.push(`${a.step}: not on the lanes expected`);
      } else if (directViaNext !== nextViaNext) {
        differences.push(`${a.step}: Next served it on one server only`);
      }
      return [a, b] as const;
    };
    // A message that reaches the work: sent, read, listed, claimed by its phone, cancelled.
    const sent = {
      method: 'POST',
      path: '/api/v1/messages',
      auth: 'account',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        from: '+14155557310',
        to: '+14155550188',
        content: 'through both lanes',
        request_id: 'walk-send',
      }),
      direct: true,
    } satisfies Step;
    const [first, second] = [await send(direct, directKeys, sent), await send(next, nextKeys, sent)];
    expect([first.status, second.status]).toEqual([201, 201]);
    directKeys.message = (JSON.parse(first.body) as { id: string }).id;
    nextKeys.message = (JSON.parse(second.body) as { id: string }).id;
    const message = (method: string, path: string, auth: Step['auth'] = 'account', body?: string): Step => ({
      method,
      path,
      auth,
      direct: true,
      ...(body ? { body, headers: { 'content-type': 'application/json' } } : {}),
    });
    await compare(message('GET', '/api/v1/messages/{message}'));
    await compare(message('GET', '/api/v1/messages?limit=5'));
    await compare(message('POST', '/api/v1/device/outbox/claim', 'device', '{"limit":1}'));
    await compare(message('POST', '/api/v1/messages', 'account', sent.body)); // the same request_id: 409
    for (const step of walkOf()) await compare(step);
    await compare(message('GET', '/api/v1/messages/{message}'));
    expect(differences, differences.join('\n')).toEqual([]);
    expect(compared).toBeGreaterThan(300);
    expect(directly).toBeGreaterThan(300);

    // The same requests, counted alike (the metrics' series of API answers).
    const counted = async (server: Running) =>
      (await (await fetch(`${server.baseUrl}/metrics`)).text())
        .split('\n')
        .filter((line) => line.startsWith('simgate_http_requests_total{'))
        .sort();
    expect(await counted(direct)).toEqual(await counted(next));
    // …and logged alike: route()'s line per request (method, path, status). A line is written
    // when its answer ends, so a client's next request may be logged first: compare as sets.
    const logged = (server: Running) =>
      server
        .output()
        .split('\n')
        .filter((line) => line.includes('"msg":"request"'))
        .map((line) => {
          const { method, path: pathname, status } = JSON.parse(line) as Record<string, unknown>;
          return normalised(`${method} ${pathname} ${status}`);
        })
        .sort();
    expect(logged(direct).length).toBeGreaterThan(300);
    expect(logged(direct)).toEqual(logged(next));
    // A request id the client sends is the answer's on the direct lane (and, by the walk, on both).
    const named = await send(direct, directKeys, {
      method: 'GET',
      path: '/api/v1/credits/balance',
      auth: 'account',
      headers: { 'x-request-id': 'walk-2' },
    });
    expect([named.viaNext, named.headers['x-request-id']]).toEqual([false, 'walk-2']);
  }, 600_000);
});

/** What differs between two answers to one request, briefly. */
function differenceOf(a: Answer, b: Answer): string {
  const parts = [a.step];
  if (a.status !== b.status) parts.push(`status ${a.status} / ${b.status}`);
  for (const name of new Set([...Object.keys(a.headers), ...Object.keys(b.headers)])) {
    if (a.headers[name] !== b.headers[name]) parts.push(`${name}: ${a.headers[name]} / ${b.headers[name]}`);
  }
  if (a.body !== b.body) parts.push(`body: ${a.body.slice(0, 300)} / ${b.body.slice(0, 300)}`);
  return parts.join('\n  ');
}

/**
 * A request through node:http, which sends any method, Host and body as given (fetch refuses a
 * Host header); an event stream's body is not awaited.
 */
function rawRequest(
  url: string,
  method: string,
  headers: Record<string, string>,
  body: string | undefined,
): Promise<{ status: number; headers: Record<string, string>; body: string; eventStream: boolean }> {
  return new Promise((resolve, reject) => {
    const req = http.request(url, { method, headers, agent: false }, (res) => {
      const eventStream = res.headers['content-type']?.startsWith('text/event-stream') === true;
      const flat = Object.fromEntries(
        Object.entries(res.headers).map(([name, value]) => [
          name,
          Array.isArray(value) ? value.join('\n') : `${value}`,
        ]),
      );
      if (eventStream) {
        req.destroy();
        return resolve({ status: res.statusCode ?? 0, headers: flat, body: '', eventStream });
      }
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const raw = Buffer.concat(chunks);
        const encoding = res.headers['content-encoding'];
        const text = (
          encoding === 'gzip'
            ? zlib.gunzipSync(raw)
            : encoding === 'br'
              ? zlib.brotliDecompressSync(raw)
              : encoding === 'deflate'
                ? zlib.inflateSync(raw)
                : raw
        ).toString('utf8');
        resolve({ status: res.statusCode ?? 0, headers: flat, body: text, eventStream });
      });
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(body);
  });
}
