import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { POST as callback } from '@/app/api/mobile/v1/callback/[deviceId]/route';
import { GET as getDevice, PATCH as patchDevice, POST as registerDevice } from '@/app/api/mobile/v1/device/route';
import { GET as events } from '@/app/api/mobile/v1/events/route';
import { PATCH as patchMessages, GET as pull } from '@/app/api/mobile/v1/message/route';
import { GET as settings } from '@/app/api/mobile/v1/settings/route';
import { GET as webhooks } from '@/app/api/mobile/v1/webhooks/route';
import { POST as cancelMessage } from '@/app/api/v1/messages/[id]/cancel/route';
import { GET as readMessage } from '@/app/api/v1/messages/[id]/route';
import { GET as listMessages, POST as send } from '@/app/api/v1/messages/route';
import { GET as listExports, POST as requestExport } from '@/app/api/v1/phones/[id]/inbox-export/route';
import { POST as pairingCode } from '@/app/api/v1/phones/[id]/pairing-code/route';
import { GET as readPhone } from '@/app/api/v1/phones/[id]/route';
import { encryptSmsGate } from '@/components/crypto/smsgate-encryption';
import type { RouteHandler } from '@/lib/http/route';
import type { Fetch } from '@/tools/device-sim/client';
import { gsonJson, SmsGateClient } from '@/tools/device-sim/smsgate-client';
import { inject, receivedPayload, runSmsGateApp, type SmsGateRunOptions } from '@/tools/device-sim/smsgate-run';
import { createTestAccount, type TestAccount, testNumber } from './fixtures';
import { call } from './http';
import { until } from './poll';
import { withTestDatabase } from './setup-db';

const { db } = withTestDatabase();

const ROUTES: [string, RegExp, RouteHandler][] = [
  ['POST', /^\/api\/mobile\/v1\/device$/, registerDevice],
  ['GET', /^\/api\/mobile\/v1\/device$/, getDevice],
  ['PATCH', /^\/api\/mobile\/v1\/device$/, patchDevice],
  ['GET', /^\/api\/mobile\/v1\/settings$/, settings],
  ['GET', /^\/api\/mobile\/v1\/webhooks$/, webhooks],
  ['GET', /^\/api\/mobile\/v1\/events$/, events],
  ['GET', /^\/api\/mobile\/v1\/message$/, pull],
  ['PATCH', /^\/api\/mobile\/v1\/message$/, patchMessages],
  ['POST', /^\/api\/mobile\/v1\/callback\/(?<deviceId>[^/]+)$/, callback],
];

/** `fetch` that hands each request to the route handler Next would run, in process. */
const routedFetch: Fetch = async (input, init) => {
  const req = new Request(input, init);
  const { pathname } = new URL(req.url);
  for (const [method, pattern, handler] of ROUTES) {
    const match = pattern.exec(pathname);
    if (match && method === req.method) return handler(req, { params: Promise.resolve({ ...match.groups }) });
  }
  return new Response('not routed', { status: 404 });
};

/** The same routes behind a real HTTP server on a free port, for the client's own `fetch` and streaming. */
async function listen(): Promise<{ origin: string; close: () => Promise<void> }> {
  const server = createServer(async (incoming, outgoing) => {
    const body = ['GET', 'HEAD'].includes(incoming.method ?? 'GET') ? undefined : Readable.toWeb(incoming);
    const aborted = new AbortController();
    outgoing.on('close', () => aborted.abort());
    const init = { method: incoming.method, headers: incoming.headers as Record<string, string>, body, duplex: 'half' };
    const res = await routedFetch(`http://${incoming.headers.host}${incoming.url}`, {
      ...(init as RequestInit),
      signal: aborted.signal,
    });
    outgoing.writeHead(res.status, Object.fromEntries(res.headers));
    outgoing.flushHeaders();
    if (!res.body) return outgoing.end();
    Readable.fromWeb(res.body as never)
      .on('error', () => outgoing.destroy())
      .pipe(outgoing);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** The simulated app, signed in with a pairing code of the account's phone, as a person would. */
async function pairedApp(account: TestAccount): Promise<SmsGateClient> {
  const pairing = await call(pairingCode, { method: 'POST', params: { id: account.phoneId }, apiKey: account.apiKey });
  expect(pairing.status).toBe(201);
  expect(pairing.body.server_url).toMatch(/\/api\/mobile\/v1$/);
  const client = new SmsGateClient({ baseUrl: pairing.body.server_url, fetch: routedFetch });
  const registration = await client.register({
    code: pairing.body.code,
    name: 'Google/sdk_gphone64',
    simCards: [{ slotIndex: 0, phoneNumber: account.phone, carrierName: 'Test Mobile', iccid: '8901260123456789012' }],
  });
  expect(registration).toMatchObject({ id: expect.any(String), token: expect.any(String), login: expect.any(String) });
  return client;
}

function run(client: SmsGateClient, account: TestAccount, overrides: Partial<SmsGateRunOptions> = {}) {
  const controller = new AbortController();
  const lines: string[] = [];
  const running = runSmsGateApp(client, {
    phone: account.phone,
    failureRate: 0,
    delayMs: 5,
    pingIntervalMs: 60_000,
    battery: 77,
    retryMs: 50,
    signal: controller.signal,
    log: (line) => lines.push(line),
    ...overrides,
  });
  const stop = async () => {
    controller.abort();
    return running;
  };
  return { stop, lines };
}

async function phoneOf(account: TestAccount) {
  return (await call(readPhone, { params: { id: account.phoneId }, apiKey: account.apiKey })).body;
}

async function messageOnceSettled(account: TestAccount, id: string) {
  return until(async () => {
    const read = await call(readMessage, { params: { id }, apiKey: account.apiKey });
    return ['delivered', 'failed'].includes(read.body.status) ? read.body : undefined;
  });
}

function sendFrom(account: TestAccount, content = 'from the SMSGate simulator test') {
  return call(send, { body: { from: account.phone, to: testNumber(), content }, apiKey: account.apiKey });
}

async function verifiedApp(account: TestAccount, overrides: Partial<SmsGateRunOptions> = {}) {
  const client = await pairedApp(account);
  const app = run(client, account, overrides);
  await until(async () => ((await phoneOf(account)).sim_verification === 'verified' ? true : undefined));
  return { client, ...app };
}

describe('the SMSGate app simulator', () => {
  it('pairs by code, passes the SIM check by loopback, delivers a send and reports its battery', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const { stop, lines } = await verifiedApp(account);

    const sent = await sendFrom(account);
    expect(sent.status).toBe(201);
    const message = await messageOnceSettled(account, sent.body.id);
    expect(message.status).toBe('delivered');
    expect(message.history.map((h: { status: string }) => h.status)).toEqual([
      'queued',
      'dispatched',
      'sent',
      'delivered',
    ]);
    expect(await phoneOf(account)).toMatchObject({ status: 'online', battery: 77 });

    const stats = await stop();
    expect(stats).toMatchObject({ pulled: 2, delivered: 2, failed: 0, loopbacks: 1, pings: 1 });
    expect(stats.connections).toBeGreaterThanOrEqual(1);
    expect(lines.filter((line) => line.startsWith('error'))).toEqual([]);
  });

  it('drops a message it holds when told (MessageCancelled, or Cancelling in a pull) and PATCHes Cancelled', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const verified = await verifiedApp(account);
    await verified.stop();
    // The same app again, now keeping what it pulls in its queue (Pending) for a minute.
    const { stop, lines } = run(verified.client, account, { holdMs: 60_000 });
    const sent = await sendFrom(account);
    await until(async () => {
      const read = await call(readMessage, { params: { id: sent.body.id }, apiKey: account.apiKey });
      return read.body.status === 'dispatched' ? true : undefined;
    });
    const cancelled = await call(cancelMessage, {
      method: 'POST',
      params: { id: sent.body.id },
      apiKey: account.apiKey,
    });
    expect(cancelled.status).toBe(202);
    const message = await until(async () => {
      const read = await call(readMessage, { params: { id: sent.body.id }, apiKey: account.apiKey });
      return read.body.status === 'cancelled' ? read.body : undefined;
    });
    expect(message.history.map((h: { status: string }) => h.status)).toEqual([
      'queued',
      'dispatched',
      'cancelling',
      'cancelled',
    ]);
    const stats = await stop();
    expect(stats).toMatchObject({ pulled: 1, cancelled: 1, delivered: 0 });
    expect(lines).toContain(`cancelled: ${sent.body.id}`);
  });

  it('reports a failed send with the app’s error text', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    // The SIM check goes through; the next message fails.
    const draws = [0.99, 0];
    const { stop } = await verifiedApp(account, { failureRate: 0.5, random: () => draws.shift() ?? 0 });
    const sent = await sendFrom(account);
    const message = await messageOnceSettled(account, sent.body.id);
    await stop();
    expect(message.status).toBe('failed');
    expect(JSON.stringify(message)).toContain('RESULT_ERROR_GENERIC_FAILURE');
  });

  it('decrypts an encrypted message with its passphrase, as the app does; without one it fails', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const { stop, lines } = await verifiedApp(account, { passphrase: 'sim secret' });
    // Encrypted by the dashboard's module; the simulator decrypts as MessagesService.kt does (app 0cdc5d8).
    const body = {
      from: account.phone,
      to: await encryptSmsGate(account.phone, 'sim secret', 1_000),
      content: await encryptSmsGate('encrypted loopback', 'sim secret', 1_000),
      encrypted: true,
    };
    const sent = await call(send, { body, apiKey: account.apiKey });
    expect(sent.status, sent.text).toBe(201);
    expect((await messageOnceSettled(account, sent.body.id)).status).toBe('delivered');
    // It was sent to the phone's own number, which only the decrypted number shows: it comes back.
    await until(async () => {
      const list = await call(listMessages, { path: '/api/v1/messages?direction=inbound', apiKey: account.apiKey });
      return list.body.data.some((m: { content: string }) => m.content === 'encrypted loopback') ? true : undefined;
    });
    const stats = await stop();
    expect(stats.loopbacks).toBe(2);
    expect(lines.filter((line) => line.startsWith('error'))).toEqual([]);

    const other = await createTestAccount(db(), { credits: 5 });
    const locked = await verifiedApp(other);
    const refused = await call(send, {
      body: { ...body, from: other.phone, to: await encryptSmsGate(testNumber(), 'sim secret', 1_000) },
      apiKey: other.apiKey,
    });
    const failed = await messageOnceSettled(other, refused.body.id);
    await locked.stop();
    expect(failed).toMatchObject({ status: 'failed', error: 'Passphrase is not set' });
  });

  it('turns an injected SMS into one inbound message, even when the app sends it twice', async () => {
    const account = await createTestAccount(db());
    const { client, stop } = await verifiedApp(account);
    // Characters Gson escapes: the signature covers the escaped bytes.
    const text = `Hi <there> & a='b' ${crypto.randomUUID()}`;
    await inject(client, { phone: account.phone, from: '+14155550123', text });
    const again = receivedPayload({ phone: account.phone, from: '+14155550199', text: `${text} again` });
    await client.emit('sms:received', again);
    await client.emit('sms:received', again);
    await stop();

    const inbound = await call(listMessages, {
      path: '/api/v1/messages?direction=inbound',
      apiKey: account.apiKey,
    });
    const contents = inbound.body.data.map((m: { from: string; content: string }) => `${m.from} ${m.content}`);
    expect(contents).toContain(`+14155550123 ${text}`);
    expect(contents.filter((line: string) => line === `+14155550199 ${text} again`)).toHaveLength(1);
  });

  it('runs over real HTTP: the event stream, its abort and the signed callbacks', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const server = await listen();
    try {
      const pairing = await call(pairingCode, {
        method: 'POST',
        params: { id: account.phoneId },
        apiKey: account.apiKey,
        headers: { host: new URL(server.origin).host },
      });
      const client = new SmsGateClient({ baseUrl: pairing.body.server_url });
      expect(client.baseUrl).toBe(`${server.origin}/api/mobile/v1`);
      await client.register({ code: pairing.body.code, name: 'Google/sdk_gphone64', simCards: [] });
      const { stop } = run(client, account);
      await until(async () => ((await phoneOf(account)).sim_verification === 'verified' ? true : undefined));
      const sent = await sendFrom(account);
      expect((await messageOnceSettled(account, sent.body.id)).status).toBe('delivered');
      expect(await stop()).toMatchObject({ delivered: 2, loopbacks: 1 });
    } finally {
      await server.close();
    }
  });

  it('refreshes its SIM cards with PATCH /device and reads its address from GET /device', async () => {
    const account = await createTestAccount(db());
    const client = await pairedApp(account);
    await client.patchDevice({ simCards: [{ slotIndex: 0, phoneNumber: account.phone }] });
    expect(await client.getDevice()).toMatchObject({ externalIp: expect.any(String) });
  });

  it('surfaces a refused pairing code with the server’s message', async () => {
    const client = new SmsGateClient({ baseUrl: 'http://127.0.0.1:3000/api/mobile/v1', fetch: routedFetch });
    await expect(
      client.register({ code: '00000000', name: 'Google/sdk_gphone64', simCards: [] }),
    ).rejects.toMatchObject({ status: 401, detail: expect.stringContaining('pairing code') });
  });
});

describe('the SMSGate app wire', () => {
  it('reads server-sent events as okhttp does', async () => {
    const chunks = [
      ':keepalive\n\nevent: WebhooksUpdated\ndata: null\n\n',
      'event: NoData\n\n',
      'data: {"a":1}\r\n\r',
      '\nevent: SettingsUpdated\ndata:\n\n',
    ];
    const fetch: Fetch = async () =>
      new Response(
        new ReadableStream({
          start(controller) {
            for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
            controller.close();
          },
        }),
        { headers: { 'content-type': 'text/event-stream' } },
      );
    const client = new SmsGateClient({ baseUrl: 'http://sim.test/api/mobile/v1', token: 't', fetch });
    const seen = [];
    for await (const event of await client.events(new AbortController().signal)) seen.push(event);
    expect(seen).toEqual([
      { type: 'WebhooksUpdated', data: 'null' },
      { type: 'MessageEnqueued', data: '{"a":1}' },
      { type: 'SettingsUpdated', data: '' },
    ]);
  });

  it('writes JSON as Gson does: nulls left out, HTML characters escaped', () => {
    expect(gsonJson({ a: "<b>&c='d'", skip: null, keep: [1, null] })).toBe(
      '{"a":"\\u003cb\\u003e\\u0026c\\u003d\\u0027d\\u0027","keep":[1,null]}',
    );
  });
});

describe('the SMSGate app simulator: inbox export and data SMS', () => {
  // The export: app modules/receiver/events/MessagesExportRequestedEvent.kt (the event's data) and
  // modules/receiver/ReceiverService.kt (`export`: each SMS of the period again as sms:received).
  it('recovers three SMS received while disconnected; the one the server had is not doubled', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const hour = 3_600_000;
    const inbox = [
      { from: '+14155550191', text: 'known before the outage', receivedAt: new Date(Date.now() - 5 * hour) },
    ];
    const { client, stop } = await verifiedApp(account, { inbox });
    await inject(client, { phone: account.phone, ...inbox[0]! });
    // What arrived while the phone could not reach the server: in its inbox, never sent.
    for (const [index, hoursAgo] of [3, 2, 1].entries()) {
      inbox.push({
        from: '+14155550192',
        text: `missed ${index + 1}`,
        receivedAt: new Date(Date.now() - hoursAgo * hour),
      });
    }
    const inboundTexts = async () => {
      const list = await call(listMessages, {
        path: `/api/v1/messages?direction=inbound&phone=${encodeURIComponent(account.phone)}`,
        apiKey: account.apiKey,
      });
      return (list.body.data as { content: string; from: string }[])
        .filter((message) => message.from !== account.phone)
        .map((message) => message.content)
        .sort();
    };
    await until(async () => ((await inboundTexts()).length === 1 ? true : undefined));
    const requested = await call(requestExport, {
      method: 'POST',
      params: { id: account.phoneId },
      body: { since: new Date(Date.now() - 6 * hour).toISOString(), until: new Date().toISOString() },
      apiKey: account.apiKey,
    });
    expect(requested.status).toBe(202);
    const counted = await until(async () => {
      const [latest] = (await call(listExports, { params: { id: account.phoneId }, apiKey: account.apiKey })).body;
      return latest.recovered + latest.repeated === 4 ? latest : undefined;
    });
    expect(counted).toMatchObject({ id: requested.body.id, recovered: 3, repeated: 1 });
    expect(await inboundTexts()).toEqual(['known before the outage', 'missed 1', 'missed 2', 'missed 3']);
    const stats = await stop();
    expect(stats.exported).toBe(4);
  });

  // The pull item's `dataMessage` (GatewayApi.kt, MessageContent.Data): sent like a text, reported the same.
  it('sends a data SMS handed to it as dataMessage and reports it delivered', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const { stop } = await verifiedApp(account);
    const sent = await call(send, {
      body: { from: account.phone, to: testNumber(), data: 'AQIDBA==', port: 2948 },
      apiKey: account.apiKey,
    });
    expect(sent.status).toBe(201);
    expect(await messageOnceSettled(account, sent.body.id)).toMatchObject({ kind: 'data', status: 'delivered' });
    await stop();
  });
});
