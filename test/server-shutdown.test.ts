import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RECONNECT_AFTER_SHUTDOWN_MS } from '@/lib/protocols/smsgate-app/events';
import { freePort } from '@/scripts/free-port';
import { activateDevice } from '@/tools/device-sim/activate';
import { DeviceClient } from '@/tools/device-sim/client';
import {
  createTestCertificates,
  eventually,
  gate,
  type Receiver,
  startReceiver,
  type TestCertificates,
} from './fixtures/tls/receiver';
import { built, type Running, spawnStart, startServer } from './start-server';

/**
 * SIGTERM to `npm start`'s real server (scripts/start.mjs around a production build, on a
 * throwaway embedded database): the open long-poll, event stream and requests end with normal
 * answers, the webhook post in flight finishes, the process exits 0 within the 10 s bound, and
 * after a restart no delivery is lost or sent twice. Needs a build (test/start-server.ts).
 */

async function startServerOn(dataDir: string, extraCa: string): Promise<Running> {
  return startServer({ DATA_DIR: dataDir, NODE_EXTRA_CA_CERTS: extraCa });
}

/** A POST whose headers and first bytes go now, and the rest of the body when `finish` is called. */
function slowRequest(url: string, apiKey: string, body: unknown): { finish: () => void; status: Promise<number> } {
  const text = JSON.stringify(body);
  const req = http.request(url, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) },
  });
  const status = new Promise<number>((resolve, reject) => {
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
  req.write(text.slice(0, 5));
  return { finish: () => req.end(text.slice(5)), status };
}

/**
 * A request on a kept-alive connection of its own: its status, its `Connection` header, its body, and
 * whether the server hung up that connection after the answer (the socket closed).
 */
function keptAlive(
  url: string,
  options: { method: string; headers: Record<string, string>; body?: string },
): Promise<{ status: number; connection: string | undefined; body: string; hungUp: Promise<void> }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  return new Promise((resolve, reject) => {
    const req = http.request(url, { ...options, agent }, (res) => {
      const socket = res.socket;
      const hungUp = new Promise<void>((closed) => socket.once('close', () => closed()));
      // A connection cut under a test that failed already is not a second failure.
      res.on('error', () => {});
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        body += chunk;
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body, hungUp }));
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

describe.runIf(built)('SIGTERM to the running server', () => {
  let dataDir: string;
  let certs: TestCertificates;
  let receiver: Receiver;
  let server: Running | undefined;

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-shutdown-'));
    certs = createTestCertificates();
    receiver = await startReceiver(certs);
  });

  afterAll(async () => {
    server?.child.kill('SIGKILL');
    await receiver?.close();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('drains open requests, finishes the webhook post in flight, exits 0 in time; nothing is lost or sent twice', {
    timeout: 180_000,
  }, async () => {
    server = await startServerOn(dataDir, certs.caFile);
    const { baseUrl } = server;
    const phone = '+14155550142';
    const activation = await activateDevice(new DeviceClient({ baseUrl }), {
      phone,
      email: 'shutdown@example.test',
      apiKeyName: 'shutdown',
    });
    const asAccount = { 'x-api-key': activation.apiKey!, 'content-type': 'application/json' };
    const asDevice = { 'x-api-key': activation.deviceKey, 'content-type': 'application/json' };
    const created = await fetch(`${baseUrl}/api/v1/webhooks`, {
      method: 'POST',
      headers: asAccount,
      body: JSON.stringify({ url: receiver.url('/shutdown'), events: ['message.received'] }),
    });
    expect(created.status).toBe(201);
    const webhook = (await created.json()) as { id: string };

    // The receiver holds the first post until after SIGTERM.
    const held = gate();
    receiver.respond(async (_hit, index) => {
      if (index === 0) await held.wait;
      return { status: 200, body: 'ok' };
    });
    const queued = await fetch(`${baseUrl}/api/v1/webhooks/${webhook.id}/test`, { method: 'POST', headers: asAccount });
    expect(queued.status).toBe(202);
    await eventually(() => receiver.hits.length === 1, 10_000);

    // The app is paired to a phone of its own: pairing revokes the phone's other devices.
    const other = await activateDevice(new DeviceClient({ baseUrl }), {
      phone: '+14155550143',
      email: 'shutdown-app@example.test',
      apiKeyName: 'shutdown',
    });
    const asOther = { 'x-api-key': other.apiKey! };
    const phones = (await (await fetch(`${baseUrl}/api/v1/phones`, { headers: asOther })).json()) as {
      data: { id: string }[];
    };
    const pairing = await fetch(`${baseUrl}/api/v1/phones/${phones.data[0]!.id}/pairing-code`, {
      method: 'POST',
      headers: asOther,
    });
    const { code } = (await pairing.json()) as { code: string };
    const registered = await fetch(`${baseUrl}/api/mobile/v1/device`, {
      method: 'POST',
      headers: { authorization: `Code ${code}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'Google/pixel', simCards: [] }),
    });
    expect(registered.status).toBe(201);
    const { token } = (await registered.json()) as { token: string };
    const stream = await fetch(`${baseUrl}/api/mobile/v1/events`, {
      headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
    });
    expect(stream.status).toBe(200);
    const streamText = stream.text();
    const longPoll = fetch(`${baseUrl}/api/v1/device/outbox/claim?wait=30`, {
      method: 'POST',
      headers: asDevice,
      body: '{}',
    });
    // The same on kept-alive connections: the long-poll's answer says `Connection: close` (the phone's
    // next claim goes to a live process), and the stream's connection is hung up once it ended.
    // (A phone of its own: a device's third waiting claim would take the place of its first.)
    const third = await activateDevice(new DeviceClient({ baseUrl }), {
      phone: '+14155550144',
      email: 'shutdown-kept@example.test',
      apiKeyName: 'shutdown',
    });
    const keptPoll = keptAlive(`${baseUrl}/api/v1/device/outbox/claim?wait=30`, {
      method: 'POST',
      headers: { 'x-api-key': third.deviceKey, 'content-type': 'application/json' },
      body: '{}',
    });
    const keptStream = keptAlive(`${baseUrl}/api/mobile/v1/events`, {
      method: 'GET',
      headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
    });
    // A long-poll whose client has gone: its handler still runs until the shutdown wakes it, and
    // the database must stay open until it is done.
    const abandoned = new AbortController();
    const abandonedPoll = fetch(`${baseUrl}/api/v1/device/outbox/claim?wait=30`, {
      method: 'POST',
      headers: asDevice,
      body: '{}',
      signal: abandoned.signal,
    }).catch((error: unknown) => error);
    const reads = Array.from({ length: 5 }, () => fetch(`${baseUrl}/api/v1/messages`, { headers: asAccount }));
    // A request the server is reading when SIGTERM comes: its body is finished only afterwards.
    const slow = slowRequest(`${baseUrl}/api/v1/webhooks`, activation.apiKey!, {
      url: receiver.url('/later'),
      events: ['message.sent'],
    });
    // Ordering, not waiting for a result: SIGTERM must come while these requests are in flight, and a
    // separate server process offers no signal that they have reached it. Too short a pause makes the
    // test fail (refused connections), never pass wrongly.
    await new Promise((resolve) => setTimeout(resolve, 300));
    abandoned.abort();
    expect(await abandonedPoll).toBeInstanceOf(Error);

    const signalled = performance.now();
    server.child.kill('SIGTERM');
    setTimeout(held.open, 100);
    setTimeout(slow.finish, 200);

    const claimed = await longPoll;
    expect(claimed.status).toBe(200);
    expect(await claimed.json()).toEqual({ data: [], cancel: [] });
    const poll = await keptPoll;
    expect([poll.status, poll.connection, JSON.parse(poll.body)]).toEqual([200, 'close', { data: [], cancel: [] }]);
    await poll.hungUp;
    const kept = await keptStream;
    expect([kept.status, kept.body]).toEqual([200, expect.stringMatching(/retry: \d+\n\n$/)]);
    await kept.hungUp;
    expect(await streamText).toMatch(/retry: \d+\n\n$/);
    expect(Number(/retry: (\d+)/.exec(await streamText)?.[1])).toBeGreaterThanOrEqual(RECONNECT_AFTER_SHUTDOWN_MS);
    for (const read of await Promise.all(reads)) expect(read.status).toBe(200);
    expect(await slow.status).toBe(201);
    expect(await server.exited).toBe(0);
    expect(performance.now() - signalled).toBeLessThan(12_000);
    expect(receiver.hits).toHaveLength(1);
    // Nothing failed on its way out (a query on a closed database logs an error).
    expect(server.stderr()).not.toMatch(/"level":(50|60)/);

    // A restart delivers nothing again: the post in flight was recorded before the exit.
    server = await startServerOn(dataDir, certs.caFile);
    const deliveries = await fetch(`${server.baseUrl}/api/v1/webhooks/${webhook.id}/deliveries`, {
      headers: { 'x-api-key': activation.apiKey! },
    });
    expect(((await deliveries.json()) as { data: { status: string }[] }).data).toMatchObject([{ status: 'succeeded' }]);
    await new Promise((resolve) => setTimeout(resolve, 2_500));
    expect(receiver.hits).toHaveLength(1);
    server.child.kill('SIGTERM');
    expect(await server.exited).toBe(0);
    server = undefined;
  });
});

describe('the answers a cut shutdown names', () => {
  it('counts them by method and path, most first, without the query', async () => {
    const file = pathToFileURL(path.resolve(import.meta.dirname, '..', 'scripts', 'serve.mjs')).href;
    const { openAnswers } = (await import(file)) as { openAnswers: (responses: Iterable<unknown>) => string };
    const answer = (method: string, url: string) => ({ req: { method, url } });
    const open = [
      answer('GET', '/api/mobile/v1/events'),
      answer('POST', '/api/v1/device/outbox/claim?wait=25'),
      answer('POST', '/api/v1/device/outbox/claim?wait=5'),
    ];
    expect(openAnswers(open)).toBe('2 POST /api/v1/device/outbox/claim, 1 GET /api/mobile/v1/events');
    expect(openAnswers([])).toBe('');
  });
});

/** Starts `npm start`'s server with `env` and waits for it to exit: its code and output. */
async function runToExit(
  env: Record<string, string>,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const { output, exited } = spawnStart(env);
  const code = await exited;
  return { code, ...output };
}

describe.runIf(built)('a port already taken', () => {
  it('stops the server with the reason, rather than leaving it up serving nothing', { timeout: 60_000 }, async () => {
    const taken = http.createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const { port } = taken.address() as AddressInfo;
    try {
      const { code, stderr } = await runToExit({ DATABASE_URL: '', PORT: String(port) });
      expect(code).toBe(1);
      expect(stderr).toContain(`cannot listen on 127.0.0.1:${port}: listen EADDRINUSE`);
    } finally {
      await new Promise((resolve) => taken.close(resolve));
    }
  });
});

describe.runIf(built)('a configuration the server cannot run with', () => {
  it('stops the server with every problem listed, never saying it is ready', { timeout: 60_000 }, async () => {
    const { code, stdout, stderr } = await runToExit({
      DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none',
      APP_URL: '',
      APP_SECRET: '',
      PORT: String(await freePort()),
    });
    expect(code).toBe(1);
    expect(stderr).toContain('APP_SECRET is required');
    expect(stderr).toContain('APP_URL is required');
    expect(stdout).not.toContain('ready');
  });
});
