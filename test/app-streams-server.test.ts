import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAM_CAP_RETRY_AFTER_S } from '@/lib/devices/sessions';
import { activateDevice } from '@/tools/device-sim/activate';
import { DeviceClient } from '@/tools/device-sim/client';
import { built, type Running, startServer } from './start-server';

/**
 * Event streams (GET /api/mobile/v1/events) and long-polls against `npm start`'s real server: the
 * caps on streams per device, account and instance, and a revoked device's (or removed phone's)
 * stream and long-poll ending at once. Needs a build (test/start-server.ts).
 */

const PER_ACCOUNT = 3;
const PER_INSTANCE = 6;
const HEARTBEAT_TIMEOUT_S = 30;
/** The stream's presence tick: half the heartbeat timeout, at least 15 s. */
const TICK_MS = Math.max(15, HEARTBEAT_TIMEOUT_S / 2) * 1000;

let server: Running | undefined;
let baseUrl = '';
let numbers = 0;

beforeAll(async () => {
  if (!built) return;
  server = await startServer({
    SSE_STREAMS_PER_ACCOUNT: String(PER_ACCOUNT),
    SSE_STREAMS_PER_INSTANCE: String(PER_INSTANCE),
    HEARTBEAT_TIMEOUT_S: String(HEARTBEAT_TIMEOUT_S),
    API_KEY_RATE_LIMIT: '0',
  });
  baseUrl = server.baseUrl;
}, 90_000);

afterAll(async () => {
  if (!server) return;
  server.child.kill('SIGTERM');
  await server.exited;
});

type Account = { apiKey: string; deviceKey: string; deviceId: string; phoneId: string };

/** A simulator phone activated in an account of its own, as a developer does it. */
async function newAccount(): Promise<Account> {
  numbers += 1;
  const tag = `${process.pid}-${numbers}`;
  const activation = await activateDevice(new DeviceClient({ baseUrl }), {
    phone: `+1415555${String(1000 + numbers).slice(-4)}`,
    email: `streams-${tag}@example.test`,
    apiKeyName: 'streams',
  });
  const phones = (await (
    await fetch(`${baseUrl}/api/v1/phones`, { headers: { 'x-api-key': activation.apiKey! } })
  ).json()) as {
    data: { id: string }[];
  };
  return {
    apiKey: activation.apiKey!,
    deviceKey: activation.deviceKey,
    deviceId: activation.deviceId,
    phoneId: phones.data[0]!.id,
  };
}

/** A second phone of the account with the SMSGate app paired to it: its token. */
async function pairAppOnNewPhone(account: Account): Promise<string> {
  numbers += 1;
  const headers = { 'x-api-key': account.apiKey, 'content-type': 'application/json' };
  const created = await fetch(`${baseUrl}/api/v1/phones`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ phone: `+1415555${String(1000 + numbers).slice(-4)}` }),
  });
  expect(created.status).toBe(201);
  const { id } = (await created.json()) as { id: string };
  const pairing = await fetch(`${baseUrl}/api/v1/phones/${id}/pairing-code`, { method: 'POST', headers });
  const { code } = (await pairing.json()) as { code: string };
  const registered = await fetch(`${baseUrl}/api/mobile/v1/device`, {
    method: 'POST',
    headers: { authorization: `Code ${code}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'Google/pixel', simCards: [] }),
  });
  expect(registered.status).toBe(201);
  return ((await registered.json()) as { token: string }).token;
}

type Stream = { res: Response; ended: Promise<string>; close: () => void };

/** Opens an event stream with the device's key; `ended` resolves with its text once the server ends it. */
async function openStream(key: string): Promise<Stream> {
  const controller = new AbortController();
  const res = await fetch(`${baseUrl}/api/mobile/v1/events`, {
    headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
    signal: controller.signal,
  });
  let text = '';
  const ended =
    res.status === 200
      ? (async () => {
          const decoder = new TextDecoder();
          for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) text += decoder.decode(chunk);
          return text;
        })()
      : res.text();
  ended.catch(() => {});
  // Open means its first events have arrived: its slot is taken and it is watching.
  if (res.status === 200) {
    const started = performance.now();
    while (!text.includes('SettingsUpdated') && performance.now() - started < 5000) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(text).toContain('SettingsUpdated');
  }
  return { res, ended, close: () => controller.abort() };
}

/** Whether `promise` settles within `ms`: a stream or poll that must end promptly. */
async function settlesWithin<T>(promise: Promise<T>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms);
  });
  const result = await Promise.race([promise.then(() => true as const), late]);
  clearTimeout(timer);
  return result;
}

/** A long-poll claim with the device's key, waiting up to 30 s for a message. */
function longPoll(key: string): Promise<{ status: number; body: { message?: string; detail?: string } }> {
  return fetch(`${baseUrl}/api/v1/device/outbox/claim?wait=30`, {
    method: 'POST',
    headers: { 'x-api-key': key, 'content-type': 'application/json' },
    body: '{}',
  }).then(async (res) => ({ status: res.status, body: await res.json() }));
}

async function heartbeatsOf(account: Account): Promise<number> {
  const res = await fetch(`${baseUrl}/api/v1/phones/${account.phoneId}/heartbeats`, {
    headers: { 'x-api-key': account.apiKey },
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { data: unknown[] }).data.length;
}

// Ordering, not waiting for a result: the long-poll must be waiting in the server when the device
// is revoked, and another process offers no signal that it is. Too short a pause fails the test
// (the claim is refused at its start, with another message), it never passes wrongly.
const LONG_POLL_SETTLE_MS = 500;

describe.runIf(built)('a revoked device, or a removed phone, loses its stream and long-poll at once', () => {
  it('DELETE /phones/{id}/devices/{device_id}: both end within 2 s, and no presence is recorded after', {
    timeout: 60_000,
  }, async () => {
    const account = await newAccount();
    const stream = await openStream(account.deviceKey);
    expect(stream.res.status).toBe(200);
    const poll = longPoll(account.deviceKey);
    await new Promise((resolve) => setTimeout(resolve, LONG_POLL_SETTLE_MS));

    const revoked = await fetch(`${baseUrl}/api/v1/phones/${account.phoneId}/devices/${account.deviceId}`, {
      method: 'DELETE',
      headers: { 'x-api-key': account.apiKey },
    });
    expect(revoked.status).toBe(204);
    expect(await settlesWithin(stream.ended, 2000)).toBe(true);
    expect(await settlesWithin(poll, 2000)).toBe(true);
    const answer = await poll;
    expect(answer.status).toBe(401);
    expect(answer.body.detail).toMatch(/revoked.*while the claim waited/);

    // The stream's presence tick would have come by now: nothing was recorded after the revocation.
    const beats = await heartbeatsOf(account);
    await new Promise((resolve) => setTimeout(resolve, TICK_MS + 1000));
    expect(await heartbeatsOf(account)).toBe(beats);
    const phone = (await (
      await fetch(`${baseUrl}/api/v1/phones/${account.phoneId}`, { headers: { 'x-api-key': account.apiKey } })
    ).json()) as { device_connected?: boolean };
    expect(phone.device_connected).not.toBe(true);
    // And the key cannot open another.
    expect((await openStream(account.deviceKey)).res.status).toBe(401);
  });

  it('DELETE /phones/{id}: both end within 2 s', { timeout: 60_000 }, async () => {
    const account = await newAccount();
    const stream = await openStream(account.deviceKey);
    expect(stream.res.status).toBe(200);
    const poll = longPoll(account.deviceKey);
    await new Promise((resolve) => setTimeout(resolve, LONG_POLL_SETTLE_MS));

    const removed = await fetch(`${baseUrl}/api/v1/phones/${account.phoneId}`, {
      method: 'DELETE',
      headers: { 'x-api-key': account.apiKey },
    });
    expect(removed.status).toBe(204);
    expect(await settlesWithin(stream.ended, 2000)).toBe(true);
    expect(await settlesWithin(poll, 2000)).toBe(true);
    const answer = await poll;
    expect(answer.status).toBe(401);
    expect(answer.body.detail).toMatch(/phone removed, while the claim waited/);
  });
});

describe.runIf(built)('caps on event streams', () => {
  const open: Stream[] = [];
  afterAll(() => {
    for (const stream of open) stream.close();
  });
  const opened = async (key: string) => {
    const stream = await openStream(key);
    open.push(stream);
    return stream;
  };

  let first: Account;

  it('a third stream of one device closes its oldest (that connection ends), and only it', {
    timeout: 60_000,
  }, async () => {
    first = await newAccount();
    const one = await opened(first.deviceKey);
    const two = await opened(first.deviceKey);
    const three = await opened(first.deviceKey);
    for (const stream of [one, two, three]) expect(stream.res.status).toBe(200);
    expect(await settlesWithin(one.ended, 2000)).toBe(true);
    expect(await settlesWithin(two.ended, 300)).toBe(false);
    expect(await settlesWithin(three.ended, 300)).toBe(false);
  });

  it(`past SSE_STREAMS_PER_ACCOUNT (${PER_ACCOUNT}) the account’s next stream answers 429 in the app’s error shape`, {
    timeout: 60_000,
  }, async () => {
    // The first device holds two; the account's second phone (the app) takes the third.
    const token = await pairAppOnNewPhone(first);
    expect((await opened(token)).res.status).toBe(200);
    const refused = await opened(token);
    expect(refused.res.status).toBe(429);
    expect(refused.res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(refused.res.headers.get('retry-after')).toBe(String(STREAM_CAP_RETRY_AFTER_S));
    const body = JSON.parse(await refused.ended) as { message: string; code: string };
    expect(body.code).toBe('RATE_LIMITED');
    expect(body.message).toMatch(`at most ${PER_ACCOUNT}`);
    // A device at its own cap still replaces its oldest: that takes no new room.
    expect((await opened(first.deviceKey)).res.status).toBe(200);
  });

  it(`past SSE_STREAMS_PER_INSTANCE (${PER_INSTANCE}) any next stream answers 503 with Retry-After`, {
    timeout: 60_000,
  }, async () => {
    const second = await newAccount();
    const third = await newAccount();
    expect((await opened(second.deviceKey)).res.status).toBe(200);
    expect((await opened(second.deviceKey)).res.status).toBe(200);
    expect((await opened(third.deviceKey)).res.status).toBe(200);
    const refused = await opened(third.deviceKey);
    expect(refused.res.status).toBe(503);
    expect(refused.res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(refused.res.headers.get('retry-after')).toBe(String(STREAM_CAP_RETRY_AFTER_S));
    const body = JSON.parse(await refused.ended) as { message: string; code: string };
    expect(body.code).toBe('SERVICE_UNAVAILABLE');
    expect(body.message).toMatch(`most event streams (${PER_INSTANCE})`);

    // A closed stream gives its room back.
    open
      .filter((stream) => stream.res.status === 200)
      .at(-1)!
      .close();
    let again: Stream | undefined;
    const started = performance.now();
    while (performance.now() - started < 5000) {
      again = await opened(third.deviceKey);
      if (again.res.status === 200) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(again?.res.status).toBe(200);
  });
});
