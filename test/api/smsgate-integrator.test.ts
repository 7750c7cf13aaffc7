import { createHmac } from 'node:crypto';
import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as deviceRoute from '@/app/api/3rdparty/v1/devices/[id]/route';
import * as devicesRoute from '@/app/api/3rdparty/v1/devices/route';
import * as healthRoute from '@/app/api/3rdparty/v1/health/route';
import * as messageRoute from '@/app/api/3rdparty/v1/messages/[id]/route';
import * as messagesRoute from '@/app/api/3rdparty/v1/messages/route';
import * as settingsRoute from '@/app/api/3rdparty/v1/settings/route';
import * as webhookRoute from '@/app/api/3rdparty/v1/webhooks/[id]/route';
import * as webhooksRoute from '@/app/api/3rdparty/v1/webhooks/route';
import { POST as reportStatus } from '@/app/api/v1/device/messages/[id]/status/route';
import { POST as received } from '@/app/api/v1/device/messages/received/route';
import { POST as claim } from '@/app/api/v1/device/outbox/claim/route';
import { POST as heartbeat } from '@/app/api/v1/heartbeats/route';
import { POST as addOptOut } from '@/app/api/v1/opt-outs/route';
import { accounts, messages, phones, smsgateMessages, webhooks } from '@/db/schema';
import { markBackground, markStarted, resetStartForTests } from '@/lib/runtime/lifecycle';
import { runDeliveryBatch } from '@/lib/webhooks/worker';
import {
  addTestPhone,
  balanceOf,
  createRevokedKey,
  createTestAccount,
  type TestAccount,
  testNumber,
} from '../fixtures';
import { createTestCertificates, type Receiver, startReceiver } from '../fixtures/tls/receiver';
import { type CallOptions, call } from '../http';
import { withTestDatabase } from '../setup-db';

process.env.APP_SECRET ??= 'test-app-secret-for-webhooks-0123456789abcdef';

const { db } = withTestDatabase();

const basic = (key: string, user = 'anyone') => ({
  authorization: `Basic ${Buffer.from(`${user}:${key}`).toString('base64')}`,
});

/** Calls a route of the surface as SMSGate's clients do: Basic with the account key. */
function as(account: TestAccount, handler: Parameters<typeof call>[0], options: CallOptions = {}) {
  return call(handler, { ...options, headers: { ...basic(account.apiKey), ...options.headers } });
}

async function send(account: TestAccount, body: Record<string, unknown>) {
  return as(account, messagesRoute.POST, { body, path: '/api/3rdparty/v1/messages' });
}

/** The phone claims what it was handed and reports each message `status`. */
async function phoneReports(account: { deviceKey: string }, status: string, ids?: string[]) {
  const claimed = await call(claim, { body: {}, apiKey: account.deviceKey });
  const handed: string[] = ids ?? claimed.body.data.map((message: { id: string }) => message.id);
  for (const id of handed) {
    await call(reportStatus, {
      params: { id },
      body: { status, ...(status === 'failed' ? { error: 'no signal' } : {}) },
      apiKey: account.deviceKey,
    });
  }
  return handed;
}

describe('authentication', () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await createTestAccount(db());
  });

  it.each([
    ['Basic with any username', () => basic(account.apiKey, 'someone@example.com')],
    ['Basic with an empty username', () => basic(account.apiKey, '')],
    ['Bearer', () => ({ authorization: `Bearer ${account.apiKey}` })],
  ])('accepts %s and an account key', async (_label, headers) => {
    const res = await call(devicesRoute.GET, { headers: headers() });
    expect(res.status, res.text).toBe(200);
  });

  it.each([
    ['no credentials', () => ({})],
    ['a wrong key', () => basic('sk_live_not_a_key_at_all_0000000000000000')],
    ['a revoked key', async () => basic(await createRevokedKey(db(), account.accountId))],
    ['a device key', () => basic(account.deviceKey)],
    ['a device key as Bearer', () => ({ authorization: `Bearer ${account.deviceKey}` })],
    ['an email and password (retired)', () => basic('secret-password', account.email)],
    ['the X-API-Key header alone', () => ({ 'x-api-key': account.apiKey })],
  ])('answers 401 with a message to %s', async (_label, headers) => {
    const res = await call(devicesRoute.GET, { headers: await headers() });
    expect(res.status).toBe(401);
    expect(res.contentType).toMatch(/^application\/json/);
    expect(res.body.message).toEqual(expect.any(String));
  });
});

describe('health', () => {
  it('answers without credentials in SMSGate’s shape', async () => {
    // What lib/server/start.ts records once the app has started (test/api/health.test.ts has the rest).
    markStarted();
    markBackground('running');
    const res = await call(healthRoute.GET);
    resetStartForTests();
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'pass',
      version: expect.any(String),
      releaseId: expect.any(Number),
      checks: { 'db:ping': { status: 'pass', observedUnit: 'ms' } },
    });
  });
});

describe('messages', () => {
  it('sends to one number: 202, Location, Pending, then the states the phone reports', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const to = testNumber();
    const res = await send(account, { textMessage: { text: 'Hello' }, phoneNumbers: [to], withDeliveryReport: true });
    expect(res.status, res.text).toBe(202);
    expect(res.headers.get('location')).toBe(`/api/3rdparty/v1/messages/${res.body.id}`);
    expect(res.body).toMatchObject({
      id: expect.any(String),
      deviceId: account.phoneId,
      state: 'Pending',
      isHashed: false,
      isEncrypted: false,
      recipients: [{ phoneNumber: to, state: 'Pending' }],
      states: { Pending: expect.any(String) },
    });
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(4);
    const read = async () => (await as(account, messageRoute.GET, { params: { id: res.body.id } })).body;
    const [id] = await phoneReports(account, 'sent');
    expect(await read()).toMatchObject({ state: 'Sent', recipients: [{ state: 'Sent' }] });
    await phoneReports(account, 'delivered', [id!]);
    const delivered = await read();
    expect(delivered).toMatchObject({ state: 'Delivered', recipients: [{ phoneNumber: to, state: 'Delivered' }] });
    expect(Object.keys(delivered.states).sort()).toEqual(['Delivered', 'Pending', 'Processed', 'Sent']);
  });

  it('fans several numbers out into one message each, and aggregates their states', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const [a, b] = [testNumber(), testNumber()];
    const res = await send(account, { id: 'order-42', message: 'Your order shipped', phoneNumbers: [a, b] });
    expect(res.status).toBe(202);
    expect(res.body.id).toBe('order-42');
    expect(res.body.recipients.map((r: { phoneNumber: string }) => r.phoneNumber)).toEqual([a, b]);
    const rows = await db().select().from(messages).where(eq(messages.accountId, account.accountId));
    expect(rows.map((row) => row.to).sort()).toEqual([a, b].sort());
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(3);
    const byTo = new Map(rows.map((row) => [row.to, row.id]));
    await phoneReports(account, 'sent');
    await phoneReports(account, 'delivered', [byTo.get(a)!]);
    // One delivered, one only sent: the message is as far as its slowest recipient.
    let state = (await as(account, messageRoute.GET, { params: { id: 'order-42' } })).body;
    expect(state).toMatchObject({
      state: 'Sent',
      recipients: [
        { phoneNumber: a, state: 'Delivered' },
        { phoneNumber: b, state: 'Sent' },
      ],
    });
    await phoneReports(account, 'failed', [byTo.get(b)!]);
    state = (await as(account, messageRoute.GET, { params: { id: 'order-42' } })).body;
    expect(state).toMatchObject({
      state: 'Delivered',
      recipients: [
        { phoneNumber: a, state: 'Delivered' },
        { phoneNumber: b, state: 'Failed', error: expect.any(String) },
      ],
    });
  });

  it('maps every Simgate state into SMSGate’s enum', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const res = await send(account, { message: 'x', phoneNumbers: [testNumber()] });
    const [row] = await db().select().from(messages).where(eq(messages.accountId, account.accountId));
    const expected = {
      queued: 'Pending',
      dispatched: 'Processed',
      sent: 'Sent',
      delivered: 'Delivered',
      failed: 'Failed',
      expired: 'Failed',
      cancelled: 'Cancelled',
    } as const;
    for (const [status, state] of Object.entries(expected)) {
      await db()
        .update(messages)
        .set({ status: status as 'queued' })
        .where(eq(messages.id, row!.id));
      const read = await as(account, messageRoute.GET, { params: { id: res.body.id } });
      expect([status, read.body.state, read.body.recipients[0].state]).toEqual([status, state, state]);
    }
  });

  it('treats the client’s id as an idempotency key: a repeat answers 409 and charges nothing', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const body = { id: 'abc-1', message: 'once', phoneNumbers: [testNumber()] };
    expect((await send(account, body)).status).toBe(202);
    const again = await send(account, body);
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({ code: 'DUPLICATE_REQUEST', message: expect.stringContaining('abc-1') });
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(4);
    // Another account may use the same id.
    const other = await createTestAccount(db(), { credits: 5 });
    expect((await send(other, body)).status).toBe(202);
  });

  it('holds the idempotency key under concurrency', async () => {
    const account = await createTestAccount(db(), { credits: 20 });
    const body = { id: 'race-1', message: 'once', phoneNumbers: [testNumber()] };
    const results = await Promise.all(Array.from({ length: 6 }, () => send(account, body)));
    expect(results.map((res) => res.status).sort()).toEqual([202, 409, 409, 409, 409, 409]);
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(19);
  });

  it('charges all recipients or none: 402 when short, nothing written', async () => {
    const account = await createTestAccount(db(), { credits: 1 });
    const res = await send(account, { id: 'two', message: 'x', phoneNumbers: [testNumber(), testNumber()] });
    expect(res.status).toBe(402);
    expect(res.body).toMatchObject({ code: 'INSUFFICIENT_CREDITS', message: expect.any(String) });
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(1);
    expect(await db().select().from(smsgateMessages).where(eq(smsgateMessages.accountId, account.accountId))).toEqual(
      [],
    );
    // The id was not used up: with one number it goes through.
    expect((await send(account, { id: 'two', message: 'x', phoneNumbers: [testNumber()] })).status).toBe(202);
  });

  it('marks an opted-out recipient Failed and charges only the others', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const [ok, stop] = [testNumber(), testNumber()];
    await call(addOptOut, { body: { phone: stop }, apiKey: account.apiKey });
    const res = await send(account, { message: 'x', phoneNumbers: [ok, stop] });
    expect(res.status).toBe(202);
    expect(res.body.recipients).toEqual([
      { phoneNumber: ok, state: 'Pending' },
      { phoneNumber: stop, state: 'Failed', error: expect.stringContaining('opted out') },
    ]);
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(4);
  });

  it('sends from a named device, and refuses an unverified one with 403', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const second = await addTestPhone(db(), account);
    const res = await send(account, {
      message: 'x',
      phoneNumbers: [testNumber()],
      deviceId: second.phoneId,
      simNumber: 1,
      priority: 100,
    });
    expect(res.status, res.text).toBe(202);
    expect(res.body.deviceId).toBe(second.phoneId);
    const [row] = await db().select().from(messages).where(eq(messages.phoneId, second.phoneId));
    expect(row).toMatchObject({ priority: 'high', sim: 1 });
    await db().update(phones).set({ simVerification: 'pending' }).where(eq(phones.id, second.phoneId));
    const refused = await send(account, { message: 'x', phoneNumbers: [testNumber()], deviceId: second.phoneId });
    expect(refused.status).toBe(403);
    const unknown = await send(account, { message: 'x', phoneNumbers: [testNumber()], deviceId: crypto.randomUUID() });
    expect(unknown.status).toBe(400);
  });

  it('schedules with scheduleAt and expires with ttl or validUntil', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const at = new Date(Date.now() + 3_600_000);
    const res = await send(account, {
      message: 'x',
      phoneNumbers: [testNumber()],
      scheduleAt: at.toISOString(),
      ttl: 600,
    });
    expect(res.status, res.text).toBe(202);
    const [row] = await db().select().from(messages).where(eq(messages.accountId, account.accountId));
    expect(row!.sendAt.getTime()).toBe(at.getTime());
    expect(row!.expiresAt!.getTime()).toBe(at.getTime() + 600_000);
  });

  it.each([
    ['both ttl and validUntil', { ttl: 600, validUntil: new Date(Date.now() + 3_600_000).toISOString() }, 'validUntil'],
    // Encrypted sends themselves: test/api/smsgate-encrypted.test.ts.
    ['isEncrypted: true over a clear text', { isEncrypted: true }, 'message'],
    ['isEncrypted: true over a clear number', { isEncrypted: true }, 'phoneNumbers.0'],
    ['isEncrypted: true without deviceId', { isEncrypted: true }, 'deviceId'],
    ['a data message without deviceId', { dataMessage: { data: 'SGVsbG8=', port: 53739 } }, 'deviceId'],
    ['a data message that is not base64', { dataMessage: { data: 'not base64!', port: 53739 } }, 'dataMessage.data'],
    ['no content', { message: undefined }, 'textMessage'],
    ['a number that is not E.164, even with skipPhoneValidation', { phoneNumbers: ['79990001234'] }, 'phoneNumbers.0'],
    ['a repeated number', { phoneNumbers: ['+14155550100', '+14155550100'] }, 'phoneNumbers'],
    [
      '101 numbers',
      { phoneNumbers: Array.from({ length: 101 }, (_, i) => `+1415555${String(1000 + i)}`) },
      'phoneNumbers',
    ],
    ['SIM slot 3', { simNumber: 3 }, 'simNumber'],
  ])('refuses %s with 400 naming the field', async (_label, extra, path) => {
    const account = await createTestAccount(db(), { credits: 5 });
    const res = await as(account, messagesRoute.POST, {
      body: { message: 'x', phoneNumbers: [testNumber()], ...extra },
      path: '/api/3rdparty/v1/messages?skipPhoneValidation=true',
    });
    expect(res.status).toBe(400);
    expect(res.body.message).toEqual(expect.any(String));
    expect(res.body.errors.map((error: { path: string }) => error.path)).toContain(path);
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(5);
  });

  it('accepts what the official clients send and Simgate does not use', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const res = await send(account, {
      id: null,
      message: 'x',
      phoneNumbers: [testNumber()],
      isEncrypted: false,
      withDeliveryReport: true,
      ttl: null,
      simNumber: null,
      somethingNew: { nested: true },
    });
    expect(res.status, res.text).toBe(202);
  });

  it('lists with filters, offset and X-Total-Count, with content on request', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    for (const n of [1, 2, 3]) await send(account, { id: `m${n}`, message: `text ${n}`, phoneNumbers: [testNumber()] });
    await phoneReports(account, 'sent', [
      (await db().select().from(messages).where(eq(messages.content, 'text 2')))[0]!.id,
    ]);
    const list = (query: string) => as(account, messagesRoute.GET, { path: `/api/3rdparty/v1/messages${query}` });
    const all = await list('');
    expect(all.headers.get('x-total-count')).toBe('3');
    expect(all.body.map((m: { id: string }) => m.id)).toEqual(['m3', 'm2', 'm1']);
    expect(all.body[0].textMessage).toBeUndefined();
    const page = await list('?limit=1&offset=1&sort=created_at&includeContent=true');
    expect(page.body).toEqual([expect.objectContaining({ id: 'm2', textMessage: { text: 'text 2' } })]);
    expect(page.headers.get('x-total-count')).toBe('3');
    // The phone was handed all three and reported only the second sent.
    const sentOnes = await list('?state=Sent');
    expect(sentOnes.body.map((m: { id: string }) => m.id)).toEqual(['m2']);
    expect(sentOnes.headers.get('x-total-count')).toBe('1');
    expect((await list('?state=Processed')).body.map((m: { id: string }) => m.id)).toEqual(['m3', 'm1']);
    expect((await list('?state=Bogus')).status).toBe(400);
    expect((await list(`?deviceId=${crypto.randomUUID()}`)).body).toEqual([]);
    expect((await list(`?from=${new Date(Date.now() + 60_000).toISOString()}`)).body).toEqual([]);
  });

  it('cancels a Pending message (refunded) and answers 409 once it is not', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const pending = await send(account, { id: 'c1', message: 'x', phoneNumbers: [testNumber(), testNumber()] });
    const cancelled = await as(account, messageRoute.DELETE, { params: { id: 'c1' }, method: 'DELETE' });
    expect(cancelled.status).toBe(200);
    expect(cancelled.body).toMatchObject({
      id: pending.body.id,
      state: 'Cancelled',
      recipients: [{ state: 'Cancelled' }, { state: 'Cancelled' }],
    });
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(5);
    await send(account, { id: 'c2', message: 'x', phoneNumbers: [testNumber()] });
    await phoneReports(account, 'sent');
    const late = await as(account, messageRoute.DELETE, { params: { id: 'c2' }, method: 'DELETE' });
    expect(late.status).toBe(409);
    expect(late.body.message).toMatch(/Pending/);
  });

  // android-sms-gateway/server 22074dd modules/messages/service.go CancelMessage: Pending → Cancelling,
  // the device told by MessageCancelled; handlers/messages/3rdparty.go `delete` answers 200 with the state.
  it('a message its phone holds becomes Cancelling; the phone’s cancelled makes it Cancelled, refunded', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const held = await send(account, { id: 'h1', message: 'x', phoneNumbers: [testNumber()] });
    const handed = (await call(claim, { body: {}, apiKey: account.deviceKey })).body.data[0].id;
    const cancelling = await as(account, messageRoute.DELETE, { params: { id: 'h1' }, method: 'DELETE' });
    expect(cancelling.status).toBe(200);
    expect(cancelling.body).toMatchObject({
      id: held.body.id,
      state: 'Cancelling',
      recipients: [{ state: 'Cancelling' }],
    });
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(4);
    await call(reportStatus, { params: { id: handed }, body: { status: 'cancelled' }, apiKey: account.deviceKey });
    const read = await as(account, messageRoute.GET, { params: { id: 'h1' } });
    expect(read.body).toMatchObject({ state: 'Cancelled', recipients: [{ state: 'Cancelled' }] });
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(5);
  });
});

describe('devices', () => {
  it('lists the account’s phones, and removes one (204, also for an unknown id)', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    const second = await addTestPhone(db(), account);
    await db().update(phones).set({ label: 'Front desk' }).where(eq(phones.id, second.phoneId));
    await call(heartbeat, { body: { phone: account.phone, status: 'online', battery: 80 }, apiKey: account.apiKey });
    const listed = await as(account, devicesRoute.GET);
    expect(listed.body).toEqual([
      expect.objectContaining({
        id: account.phoneId,
        name: account.phone,
        lastSeen: expect.any(String),
        simCards: [expect.objectContaining({ simNumber: 1, phoneNumber: account.phone })],
      }),
      expect.objectContaining({ id: second.phoneId, name: 'Front desk' }),
    ]);
    expect((await as(account, deviceRoute.DELETE, { params: { id: second.phoneId }, method: 'DELETE' })).status).toBe(
      204,
    );
    expect((await as(account, devicesRoute.GET)).body.map((d: { id: string }) => d.id)).toEqual([account.phoneId]);
    expect((await as(account, deviceRoute.DELETE, { params: { id: 'no-such-device' }, method: 'DELETE' })).status).toBe(
      204,
    );
  });
});

describe('webhooks in SMSGate’s format', () => {
  let receiver: Receiver;
  beforeAll(async () => {
    const certs = createTestCertificates();
    process.env.NODE_EXTRA_CA_CERTS = certs.caFile;
    receiver = await startReceiver(certs);
  });
  afterAll(async () => {
    await receiver?.close();
  });

  it('registers, replaces by id, lists and deletes; https only; unknown SMSGate events never fire', async () => {
    const account = await createTestAccount(db());
    const created = await as(account, webhooksRoute.POST, {
      body: { id: 'hook-1', url: receiver.url('/a'), event: 'sms:received' },
    });
    expect(created.status, created.text).toBe(201);
    expect(created.body).toEqual({ id: 'hook-1', url: receiver.url('/a'), event: 'sms:received', deviceId: null });
    await as(account, webhooksRoute.POST, {
      body: { id: 'hook-1', url: receiver.url('/b'), event: 'sms:sent', deviceId: account.phoneId },
    });
    await as(account, webhooksRoute.POST, { body: { url: receiver.url('/c'), event: 'mms:received' } });
    const listed = (await as(account, webhooksRoute.GET)).body;
    expect(listed).toEqual([
      { id: 'hook-1', url: receiver.url('/b'), event: 'sms:sent', deviceId: account.phoneId },
      { id: expect.any(String), url: receiver.url('/c'), event: 'mms:received', deviceId: null },
    ]);
    const http = await as(account, webhooksRoute.POST, { body: { url: 'http://example.com/x', event: 'sms:sent' } });
    expect(http.status).toBe(400);
    const bogus = await as(account, webhooksRoute.POST, { body: { url: receiver.url('/d'), event: 'sms:bogus' } });
    expect(bogus.status).toBe(400);
    expect((await as(account, webhookRoute.DELETE, { params: { id: 'hook-1' }, method: 'DELETE' })).status).toBe(204);
    expect((await as(account, webhookRoute.DELETE, { params: { id: 'hook-1' }, method: 'DELETE' })).status).toBe(204);
    expect((await as(account, webhooksRoute.GET)).body).toHaveLength(1);
  });

  it('delivers sms:received, sms:sent, sms:delivered, sms:failed and system:ping with a verifiable X-Signature', async () => {
    await db().update(webhooks).set({ enabled: false });
    receiver.hits.length = 0;
    const account = await createTestAccount(db(), { credits: 5 });
    for (const event of ['sms:received', 'sms:sent', 'sms:delivered', 'sms:failed', 'system:ping']) {
      await as(account, webhooksRoute.POST, { body: { id: event, url: receiver.url(`/sg/${event}`), event } });
    }
    const key = (await as(account, settingsRoute.GET)).body.webhooks.signing_key as string;
    expect(key).toEqual(expect.any(String));
    const customer = testNumber();
    await call(received, {
      body: { from: customer, content: 'Hi there', device_message_id: 'r1' },
      apiKey: account.deviceKey,
    });
    const sent = await send(account, { id: 'sg-1', message: 'Hello', phoneNumbers: [customer] });
    const [id] = await phoneReports(account, 'sent');
    await phoneReports(account, 'delivered', [id!]);
    await send(account, { id: 'sg-2', message: 'Fail me', phoneNumbers: [testNumber()] });
    await phoneReports(account, 'failed');
    await call(heartbeat, { body: { phone: account.phone, status: 'online', battery: 90 }, apiKey: account.apiKey });
    await runDeliveryBatch(db(), { now: new Date(Date.now() + 1000), limit: 50 });
    const hits = receiver.hits.filter((hit) => hit.path.startsWith('/sg/'));
    const bodies = Object.fromEntries(hits.map((hit) => [hit.path.slice(4), JSON.parse(hit.body)]));
    for (const hit of hits) {
      const expected = createHmac('sha256', key)
        .update(hit.body + hit.headers['x-timestamp'])
        .digest('hex');
      expect(hit.headers['x-signature']).toBe(expected);
      expect(Math.abs(Number(hit.headers['x-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    }
    expect(bodies['sms:received']).toEqual({
      id: expect.any(String),
      webhookId: 'sms:received',
      event: 'sms:received',
      deviceId: account.phoneId,
      payload: {
        messageId: expect.any(String),
        message: 'Hi there',
        phoneNumber: customer,
        simNumber: null,
        receivedAt: expect.any(String),
      },
    });
    expect(bodies['sms:sent']).toMatchObject({
      event: 'sms:sent',
      payload: { messageId: sent.body.id, phoneNumber: customer },
    });
    expect(bodies['sms:delivered']).toMatchObject({ payload: { messageId: 'sg-1', deliveredAt: expect.any(String) } });
    expect(bodies['sms:failed']).toMatchObject({ payload: { messageId: 'sg-2', reason: expect.any(String) } });
    expect(bodies['system:ping']).toMatchObject({ event: 'system:ping', deviceId: account.phoneId, payload: {} });
  });

  it('shows SMSGate webhooks in the account’s webhook list, marked as such', async () => {
    const account = await createTestAccount(db());
    await as(account, webhooksRoute.POST, { body: { id: 'x', url: receiver.url('/list'), event: 'sms:sent' } });
    const { GET: listV1 } = await import('@/app/api/v1/webhooks/route');
    const listed = await call(listV1, { apiKey: account.apiKey });
    expect(listed.body.data).toEqual([
      expect.objectContaining({ url: receiver.url('/list'), format: 'smsgate', events: ['message.sent'] }),
    ]);
  });
});

describe('settings', () => {
  it('shows the signing key, maps pacing and work hours, and echoes what it does not use', async () => {
    const account = await createTestAccount(db());
    const first = await as(account, settingsRoute.GET);
    expect(first.body.webhooks.signing_key).toEqual(expect.any(String));
    const put = await as(account, settingsRoute.PUT, {
      method: 'PUT',
      body: {
        messages: {
          limit_period: 'PerMinute',
          limit_value: 4,
          work_hours_enabled: true,
          work_hours_start: '09:00',
          work_hours_end: '17:00',
          sim_selection_mode: 'RoundRobin',
        },
        ping: { interval_seconds: 300 },
        logs: { lifetime_days: 7 },
        webhooks: { signing_key: 'a-key-of-my-own-choosing', retry_count: 5 },
      },
    });
    expect(put.status, put.text).toBe(200);
    expect(put.body).toMatchObject({
      messages: {
        limit_period: 'PerMinute',
        limit_value: 4,
        work_hours_enabled: true,
        work_hours_start: '09:00',
        sim_selection_mode: 'RoundRobin',
      },
      ping: { interval_seconds: 300 },
      logs: { lifetime_days: 7 },
      webhooks: { signing_key: 'a-key-of-my-own-choosing', retry_count: 5 },
    });
    const [phone] = await db().select().from(phones).where(eq(phones.id, account.phoneId));
    expect(phone!.messagesPerMinute).toBe(4);
    const [row] = await db().select().from(accounts).where(eq(accounts.id, account.accountId));
    expect(row!.sendWindow).toMatchObject({ time_zone: 'UTC', start: '09:00', end: '17:00' });
    expect(JSON.stringify(row!.smsgateSettings)).not.toContain('a-key-of-my-own-choosing');
    const patched = await as(account, settingsRoute.PATCH, {
      method: 'PATCH',
      body: { messages: { work_hours_enabled: false }, ping: { interval_seconds: 60 } },
    });
    expect(patched.body).toMatchObject({
      messages: { limit_value: 4, work_hours_enabled: false, sim_selection_mode: 'RoundRobin' },
      ping: { interval_seconds: 60 },
      logs: { lifetime_days: 7 },
    });
    const [after] = await db().select().from(accounts).where(eq(accounts.id, account.accountId));
    expect(after!.sendWindow).toBeNull();
    const bad = await as(account, settingsRoute.PATCH, { method: 'PATCH', body: { messages: { limit_value: 0 } } });
    expect(bad.status).toBe(400);
    const notObject = await as(account, settingsRoute.PATCH, { method: 'PATCH', body: { messages: 5 } });
    expect(notObject.status).toBe(400);
  });
});

describe('tenant isolation', () => {
  it('shows another account nothing of this one’s messages, devices and webhooks', async () => {
    const a = await createTestAccount(db(), { credits: 5 });
    const b = await createTestAccount(db(), { credits: 5 });
    await send(a, { id: 'mine', message: 'x', phoneNumbers: [testNumber()] });
    await as(a, webhooksRoute.POST, { body: { id: 'a-hook', url: 'https://hooks.example.test/a', event: 'sms:sent' } });
    expect((await as(b, messageRoute.GET, { params: { id: 'mine' } })).status).toBe(404);
    expect((await as(b, messageRoute.DELETE, { params: { id: 'mine' }, method: 'DELETE' })).status).toBe(404);
    expect((await as(b, messagesRoute.GET)).body).toEqual([]);
    expect((await as(b, devicesRoute.GET)).body.map((d: { id: string }) => d.id)).toEqual([b.phoneId]);
    expect((await send(b, { message: 'x', phoneNumbers: [testNumber()], deviceId: a.phoneId })).status).toBe(400);
    expect((await as(b, webhooksRoute.GET)).body).toEqual([]);
    expect((await as(b, webhookRoute.DELETE, { params: { id: 'a-hook' }, method: 'DELETE' })).status).toBe(204);
    expect((await as(b, deviceRoute.DELETE, { params: { id: a.phoneId }, method: 'DELETE' })).status).toBe(204);
    // Nothing of A's moved.
    expect((await as(a, webhooksRoute.GET)).body).toHaveLength(1);
    expect((await as(a, devicesRoute.GET)).body.map((d: { id: string }) => d.id)).toEqual([a.phoneId]);
    expect((await as(a, messageRoute.GET, { params: { id: 'mine' } })).body.state).toBe('Pending');
    expect(await balanceOf(db(), a.defaultGroupId)).toBe(4);
  });
});
