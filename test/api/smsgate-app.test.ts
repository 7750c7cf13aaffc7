import { and, eq, like, sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { POST as callbackRoute } from '@/app/api/mobile/v1/callback/[deviceId]/route';
import { GET as getDevice, PATCH as patchDevice, POST as registerAppDevice } from '@/app/api/mobile/v1/device/route';
import { GET as events } from '@/app/api/mobile/v1/events/route';
import { PATCH as patchMessages } from '@/app/api/mobile/v1/message/route';
import { GET as settings } from '@/app/api/mobile/v1/settings/route';
import { GET as webhooksList } from '@/app/api/mobile/v1/webhooks/route';
import { POST as sendBulk } from '@/app/api/v1/bulk-messages/route';
import { GET as balance } from '@/app/api/v1/credits/balance/route';
import { POST as claimRoute } from '@/app/api/v1/device/outbox/claim/route';
import { GET as getMessage } from '@/app/api/v1/messages/[id]/route';
import { GET as listMessages, POST as send } from '@/app/api/v1/messages/route';
import { DELETE as revokeDevice } from '@/app/api/v1/phones/[id]/devices/[device_id]/route';
import { GET as listDevices } from '@/app/api/v1/phones/[id]/devices/route';
import { POST as pairingCode } from '@/app/api/v1/phones/[id]/pairing-code/route';
import { DELETE as deletePhone, GET as getPhone } from '@/app/api/v1/phones/[id]/route';
import { POST as resendCheck } from '@/app/api/v1/phones/[id]/sim-check/resend/route';
import { POST as simCheck } from '@/app/api/v1/phones/[id]/sim-check/route';
import { POST as createPhone } from '@/app/api/v1/phones/route';
import { openPostgres } from '@/db/client';
import { events as eventsTable, messages, pairingCodes } from '@/db/schema';
import { sendMessage } from '@/lib/messages/send';
import { SIGNATURE_TOLERANCE_SECONDS } from '@/lib/protocols/smsgate-app/signature';
import { onRealPostgres } from '../database';
import { createTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call, fromSocket } from '../http';
import { withTestDatabase } from '../setup-db';
import {
  bearer,
  codeIn,
  newPairingCode,
  type PairedApp,
  pairApp,
  pairVerifiedApp,
  pullAs,
  registerWith,
  signedCallback,
} from '../smsgate-app';

const { db, handle } = withTestDatabase();

const APP_DATE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

async function sendFrom(account: TestAccount, extra: Record<string, unknown> = {}) {
  return call(send, {
    body: { from: account.phone, to: testNumber(), content: 'Hello <world> & friends', ...extra },
    apiKey: account.apiKey,
  });
}

async function messageOf(account: TestAccount, id: string) {
  return (await call(getMessage, { params: { id }, apiKey: account.apiKey })).body;
}

async function phoneOf(account: TestAccount) {
  return (await call(getPhone, { params: { id: account.phoneId }, apiKey: account.apiKey })).body;
}

/** The webhook events emitted about one message, sorted: the same ones the simulator's reports emit. */
async function eventsAbout(account: TestAccount, messageId: string): Promise<string[]> {
  const emitted = await db()
    .select({ type: eventsTable.type })
    .from(eventsTable)
    .where(and(eq(eventsTable.accountId, account.accountId), sql`${eventsTable.payload}->>'id' = ${messageId}`));
  return emitted.map((event) => event.type).sort();
}

function patchAs(app: PairedApp, reports: unknown) {
  return call(patchMessages, { method: 'PATCH', body: reports, headers: bearer(app) });
}

describe('pairing codes: POST /api/v1/phones/{id}/pairing-code', () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await createTestAccount(db());
  });

  it('answers 201 with 8 digits, 10 minutes of life and the server address to type', async () => {
    const res = await call(pairingCode, {
      method: 'POST',
      params: { id: account.phoneId },
      apiKey: account.apiKey,
      headers: { host: 'sms.example.test' },
    });
    expect(res.status).toBe(201);
    expect(res.body.code).toMatch(/^\d{8}$/);
    const life = new Date(res.body.expires_at).getTime() - Date.now();
    expect(life).toBeGreaterThan(590_000);
    expect(life).toBeLessThanOrEqual(600_000);
    expect(res.body.server_url).toBe('http://sms.example.test/api/mobile/v1');
  });

  it('stores the code hashed, never in clear', async () => {
    const code = await newPairingCode(account);
    const rows = await db().select().from(pairingCodes).where(eq(pairingCodes.phoneId, account.phoneId));
    expect(rows.some((row) => row.codeHash.includes(code))).toBe(false);
    expect(rows.every((row) => /^[0-9a-f]{64}$/.test(row.codeHash))).toBe(true);
  });

  it('voids the earlier code of the phone when a new one is issued', async () => {
    const first = await newPairingCode(account);
    await newPairingCode(account);
    const res = await registerWith(`Code ${first}`);
    expect(res.status).toBe(401);
  });

  it("answers 404 for another account's phone and for no phone", async () => {
    const other = await createTestAccount(db());
    for (const id of [other.phoneId, crypto.randomUUID()]) {
      const res = await call(pairingCode, { method: 'POST', params: { id }, apiKey: account.apiKey });
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
  });

  it('removing the phone deletes its codes (they name it without a foreign key), and one typed after answers 401', async () => {
    const removed = await createTestAccount(db());
    const code = await newPairingCode(removed);
    const res = await call(deletePhone, { method: 'DELETE', params: { id: removed.phoneId }, apiKey: removed.apiKey });
    expect(res.status).toBe(204);
    expect(await db().select().from(pairingCodes).where(eq(pairingCodes.phoneId, removed.phoneId))).toEqual([]);
    expect((await registerWith(`Code ${code}`)).status).toBe(401);
  });

  it('is limited per account: past PAIRING_RATE_LIMIT an hour it answers 429 with Retry-After', async () => {
    const limited = await createTestAccount(db());
    process.env.PAIRING_RATE_LIMIT = '2';
    try {
      await newPairingCode(limited);
      await newPairingCode(limited);
      const res = await call(pairingCode, { method: 'POST', params: { id: limited.phoneId }, apiKey: limited.apiKey });
      expect(res.status).toBe(429);
      expect(res.body.code).toBe('RATE_LIMITED');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
    } finally {
      delete process.env.PAIRING_RATE_LIMIT;
    }
  });
});

describe('POST /api/mobile/v1/device: the app signs in by code', () => {
  let account: TestAccount;
  beforeAll(async () => {
    account = await createTestAccount(db());
  });

  it('registers with `Authorization: Code <code>` and answers the app’s { id, token, login } as JSON', async () => {
    const code = await newPairingCode(account);
    const res = await registerWith(`Code ${code}`, {
      name: 'Google/sdk_gphone64',
      simCards: [
        { slotIndex: 0, simNumber: 1, phoneNumber: `*******${account.phone.slice(-4)}`, carrierName: '**rier' },
      ],
      unknownField: 'ignored',
    });
    expect(res.status).toBe(201);
    expect(res.contentType).toBe('application/json');
    expect(res.body).toEqual({ id: expect.any(String), token: expect.stringMatching(/^dk_/), login: account.phone });
    expect(res.body).not.toHaveProperty('password');
    const devices = await call(listDevices, { params: { id: account.phoneId }, apiKey: account.apiKey });
    expect(devices.body.data[0]).toMatchObject({
      id: res.body.id,
      kind: 'app',
      name: 'Google/sdk_gphone64',
      status: 'activated',
      current: true,
      sim_cards: [{ slot: 1, phone_number: `*******${account.phone.slice(-4)}`, carrier: '**rier' }],
    });
  });

  it('registers with the code in the Bearer form (the app’s "private token" field)', async () => {
    const other = await createTestAccount(db());
    const res = await registerWith(`Bearer ${await newPairingCode(other)}`);
    expect(res.status).toBe(201);
  });

  it('refuses Basic (passwords are retired) and an anonymous sign-up with 401 and a message saying how to pair', async () => {
    for (const authorization of ['Basic dXNlcjpwYXNz', undefined]) {
      const res = await registerWith(authorization);
      expect(res.status).toBe(401);
      expect(res.contentType).toBe('application/json');
      expect(res.body.code).toBe('UNAUTHENTICATED');
      expect(res.body.message).toMatch(/Sign in by code/);
    }
    expect((await registerWith('Basic dXNlcjpwYXNz')).body.message).toMatch(/retired/);
  });

  it('refuses a spent, unknown, malformed or expired code', async () => {
    const code = await newPairingCode(account);
    expect((await registerWith(`Code ${code}`)).status).toBe(201);
    expect((await registerWith(`Code ${code}`)).status).toBe(401);
    expect((await registerWith('Code 00000000')).status).toBe(401);
    expect((await registerWith('Code 12ab')).status).toBe(401);
    const stale = await newPairingCode(account);
    await db()
      .update(pairingCodes)
      .set({ expiresAt: sql`now() - interval '1 second'` })
      .where(eq(pairingCodes.phoneId, account.phoneId));
    const expired = await registerWith(`Code ${stale}`);
    expect(expired.status).toBe(410);
    expect(expired.body.code).toBe('CODE_EXPIRED');
  });

  it('refuses with 409 SIM_MISMATCH a phone whose SIM numbers all end otherwise', async () => {
    const code = await newPairingCode(account);
    const res = await registerWith(`Code ${code}`, {
      name: 'x',
      simCards: [
        { slotIndex: 0, simNumber: 1, phoneNumber: '*******9999' },
        { slotIndex: 1, simNumber: 2 },
      ],
    });
    expect(res.status).toBe(409);
    expect(res.body.code).toBe('SIM_MISMATCH');
    // Nothing was written: the code still pairs a matching phone.
    expect((await registerWith(`Code ${code}`)).status).toBe(201);
  });

  it('counts every attempt against the client IP’s registration limit', async () => {
    process.env.REGISTER_IP_RATE_LIMIT = '2';
    try {
      const headers = fromSocket('198.51.100.77');
      const guess = () =>
        call(registerAppDevice, {
          method: 'POST',
          body: { simCards: [] },
          headers: { ...headers, authorization: 'Code 11111111' },
        });
      expect((await guess()).status).toBe(401);
      expect((await guess()).status).toBe(401);
      const limited = await guess();
      expect(limited.status).toBe(429);
      expect(limited.body.code).toBe('RATE_LIMITED');
    } finally {
      delete process.env.REGISTER_IP_RATE_LIMIT;
    }
  });
});

describe('a paired app before its SIM is proven', () => {
  let account: TestAccount;
  let app: PairedApp;
  beforeAll(async () => {
    account = await createTestAccount(db());
    app = await pairApp(account);
  });

  it('revokes the phone’s earlier device key and marks the SIM check pending', async () => {
    const old = await call(claimRoute, { body: {}, apiKey: account.deviceKey });
    expect(old.status).toBe(401);
    expect(await phoneOf(account)).toMatchObject({ device_connected: true, sim_verification: 'pending' });
  });

  it('refuses API sends from the phone with 403 saying the SIM is not verified', async () => {
    const res = await sendFrom(account);
    expect(res.status).toBe(403);
    expect(res.body.code).toBe('FORBIDDEN');
    expect(res.body.detail).toMatch(/SIM is not verified/);
    const bulk = await call(sendBulk, {
      body: { from: account.phone, recipients: [testNumber()], content: 'x' },
      apiKey: account.apiKey,
    });
    expect(bulk.status).toBe(403);
    expect(bulk.body.detail).toMatch(/SIM is not verified/);
  });

  it('hands the phone only its free SIM check, to its own number, and shows the account no code', async () => {
    const before = (await call(balance, { apiKey: account.apiKey })).body.total;
    const pulled = await pullAs(app);
    expect(pulled).toHaveLength(1);
    const [check] = pulled;
    expect(check).toMatchObject({ phoneNumbers: [account.phone], state: 'Pending', isEncrypted: false });
    expect(check?.textMessage.text).toMatch(/\b\d{6}\b/);
    expect((await call(balance, { apiKey: account.apiKey })).body.total).toBe(before);
    const shown = await messageOf(account, check!.id);
    expect(shown.kind).toBe('sim_check');
    expect(shown.content).not.toMatch(/\d{6}/);
  });

  it('sending the check again drops the earlier one, handed out or not', async () => {
    const [first] = await pullAs(app);
    expect(
      (await call(resendCheck, { method: 'POST', params: { id: account.phoneId }, apiKey: account.apiKey })).status,
    ).toBe(202);
    const pulled = await pullAs(app);
    expect(pulled).toHaveLength(1);
    expect(pulled[0]?.id).not.toBe(first?.id);
  });

  it('verifies by the code typed into the dashboard when the loopback does not arrive', async () => {
    const wrong = await call(simCheck, {
      params: { id: account.phoneId },
      body: { code: '000000' },
      apiKey: account.apiKey,
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.code).toBe('INVALID_CODE');
    const resent = await call(resendCheck, { method: 'POST', params: { id: account.phoneId }, apiKey: account.apiKey });
    expect(resent.status).toBe(202);
    const check = (await pullAs(app)).find((m) => m.textMessage.text.includes('SIM check'));
    const res = await call(simCheck, {
      params: { id: account.phoneId },
      body: { code: codeIn(check!.textMessage.text) },
      apiKey: account.apiKey,
    });
    expect(res.status).toBe(200);
    expect(res.body.sim_verification).toBe('verified');
    const again = await call(simCheck, {
      params: { id: account.phoneId },
      body: { code: '123456' },
      apiKey: account.apiKey,
    });
    expect(again.status).toBe(409);
    expect((await sendFrom(account)).status).toBe(201);
  });
});

describe('the loopback SMS proves the SIM', () => {
  it('verifies when the app reports the check received from its own number, written nationally', async () => {
    const account = await createTestAccount(db());
    const app = await pairApp(account);
    const [check] = await pullAs(app);
    // A different number's SMS with the code verifies nothing.
    await signedCallback(app, 'sms:received', {
      messageId: 'a1',
      message: check!.textMessage.text,
      sender: '+14155550199',
    });
    expect((await phoneOf(account)).sim_verification).toBe('pending');
    const national = account.phone.replace('+1', '');
    const res = await signedCallback(app, 'sms:received', {
      messageId: 'a2',
      message: check!.textMessage.text,
      sender: national,
      receivedAt: '2026-07-14T08:13:49.123+07:00',
    });
    expect(res.status).toBe(200);
    expect((await phoneOf(account)).sim_verification).toBe('verified');
  });
});

describe('the app’s documents: settings, webhooks, device', () => {
  let account: TestAccount;
  let app: PairedApp;
  beforeAll(async () => {
    account = await createTestAccount(db());
    app = await pairApp(account);
  });

  it('GET /settings: SSE only, a ping interval within the heartbeat timeout, the signing key, no nulls', async () => {
    const res = await call(settings, { headers: bearer(app) });
    expect(res.status).toBe(200);
    expect(res.contentType).toBe('application/json');
    expect(res.body).toEqual({
      gateway: { notification_channel: 'SSE_ONLY' },
      ping: { interval_seconds: 150 },
      webhooks: { signing_key: expect.any(String) },
    });
    expect(res.body.webhooks.signing_key.length).toBeGreaterThanOrEqual(24);
  });

  it('GET /webhooks: one distinct id per event, all at this device’s signed callback', async () => {
    const res = await call(webhooksList, { headers: { ...bearer(app), host: 'sms.example.test' } });
    expect(res.status).toBe(200);
    // The events of the app's WebHookEvent.kt that Simgate reads.
    expect(res.body.map((w: { event: string }) => w.event).sort()).toEqual([
      'app:started',
      'mms:downloaded',
      'mms:received',
      'sms:cancelled',
      'sms:data-received',
      'sms:delivered',
      'sms:failed',
      'sms:received',
      'sms:sent',
      'system:ping',
    ]);
    expect(new Set(res.body.map((w: { id: string }) => w.id)).size).toBe(10);
    for (const hook of res.body) {
      expect(hook.url).toBe(`http://sms.example.test/api/mobile/v1/callback/${app.deviceId}`);
    }
  });

  it('GET /device tells the address it sees; PATCH /device stores SIMs, and refuses another id with 403', async () => {
    const seen = await call(getDevice, { headers: { ...bearer(app), ...fromSocket('203.0.113.9') } });
    expect(seen.body).toMatchObject({ externalIp: '203.0.113.9', device: { id: app.deviceId } });
    const other = await call(patchDevice, {
      method: 'PATCH',
      body: { id: crypto.randomUUID(), simCards: [] },
      headers: bearer(app),
    });
    expect(other.status).toBe(403);
    const ok = await call(patchDevice, {
      method: 'PATCH',
      body: {
        id: app.deviceId,
        pushToken: 'fcm-1',
        simCards: [{ slotIndex: 1, simNumber: 2, phoneNumber: '****4321' }],
      },
      headers: bearer(app),
    });
    expect(ok.status).toBe(204);
    const devices = await call(listDevices, { params: { id: account.phoneId }, apiKey: account.apiKey });
    expect(devices.body.data[0].sim_cards).toEqual([{ slot: 2, phone_number: '****4321', carrier: null }]);
  });

  it('answers a wrong token with 401 as JSON with a message the app can show', async () => {
    for (const authorization of [`Bearer dk_${'A'.repeat(40)}`, 'Bearer nonsense', undefined]) {
      const res = await call(settings, { headers: authorization ? { authorization } : {} });
      expect(res.status).toBe(401);
      expect(res.contentType).toBe('application/json');
      expect(res.body.message).toEqual(expect.any(String));
    }
  });
});

describe('messages through the app: pull, PATCH and callbacks', () => {
  let account: TestAccount;
  let app: PairedApp;
  beforeAll(async () => {
    account = await createTestAccount(db(), { credits: 50 });
    app = await pairVerifiedApp(account);
    await pullAs(app); // the SIM check is done with
    await patchAs(app, []);
  });

  it('hands a sent message out once as the app reads it (RFC 3339 dates with milliseconds), then again until reported', async () => {
    const sent = await sendFrom(account, { ttl_s: 3600 });
    expect(sent.status).toBe(201);
    const [message] = await pullAs(app);
    expect(message).toEqual({
      id: sent.body.id,
      message: 'Hello <world> & friends',
      textMessage: { text: 'Hello <world> & friends' },
      phoneNumbers: [sent.body.to],
      withDeliveryReport: true,
      isEncrypted: false,
      validUntil: expect.stringMatching(APP_DATE),
      createdAt: expect.stringMatching(APP_DATE),
      state: 'Pending',
    });
    expect((await messageOf(account, sent.body.id)).status).toBe('dispatched');
    const again = await pullAs(app);
    expect(again.map((m) => m.id)).toEqual([sent.body.id]);
    await patchAs(app, [
      { id: sent.body.id, state: 'Failed', recipients: [{ phoneNumber: sent.body.to, state: 'Failed', error: 'x' }] },
    ]);
    expect(await pullAs(app)).toEqual([]);
  });

  it('takes a message through Processed, Sent and Delivered, with events, and a repeat changes nothing', async () => {
    const sent = await sendFrom(account);
    await pullAs(app);
    const now = new Date().toISOString();
    const processed = await patchAs(app, [
      {
        id: sent.body.id,
        state: 'Processed',
        recipients: [{ phoneNumber: sent.body.to, state: 'Processed' }],
        states: { Processed: now },
      },
    ]);
    expect(processed.status).toBe(204);
    expect((await messageOf(account, sent.body.id)).status).toBe('dispatched');
    await patchAs(app, [
      { id: sent.body.id, state: 'Sent', recipients: [{ phoneNumber: sent.body.to, state: 'Sent' }] },
    ]);
    expect((await messageOf(account, sent.body.id)).status).toBe('sent');
    const delivered = await signedCallback(app, 'sms:delivered', {
      messageId: sent.body.id,
      phoneNumber: sent.body.to,
      deliveredAt: now,
    });
    expect(delivered.status).toBe(200);
    const repeat = await patchAs(app, [
      { id: sent.body.id, state: 'Delivered', recipients: [{ phoneNumber: sent.body.to, state: 'Delivered' }] },
    ]);
    expect(repeat.status).toBe(204);
    expect((await signedCallback(app, 'sms:delivered', { messageId: sent.body.id })).status).toBe(200);
    const message = await messageOf(account, sent.body.id);
    expect(message.history.map((h: { status: string }) => h.status)).toEqual([
      'queued',
      'dispatched',
      'sent',
      'delivered',
    ]);
    expect(await eventsAbout(account, sent.body.id)).toEqual(['message.delivered', 'message.sent']);
  });

  it('a Delivered report straight from dispatched passes through sent', async () => {
    const sent = await sendFrom(account);
    await pullAs(app);
    await patchAs(app, [{ id: sent.body.id, state: 'Delivered', recipients: [] }]);
    const message = await messageOf(account, sent.body.id);
    expect(message.history.map((h: { status: string }) => h.status)).toEqual([
      'queued',
      'dispatched',
      'sent',
      'delivered',
    ]);
  });

  it('a failure refunds the credit once and keeps the phone’s error', async () => {
    const sent = await sendFrom(account);
    await pullAs(app);
    const before = (await call(balance, { apiKey: account.apiKey })).body.total;
    const error = 'Send result: RESULT_ERROR_RADIO_OFF (Failed because radio was explicitly turned off)';
    await patchAs(app, [
      { id: sent.body.id, state: 'Failed', recipients: [{ phoneNumber: sent.body.to, state: 'Failed', error }] },
    ]);
    await signedCallback(app, 'sms:failed', { messageId: sent.body.id, reason: error });
    const message = await messageOf(account, sent.body.id);
    expect(message).toMatchObject({ status: 'failed', error });
    expect((await call(balance, { apiKey: account.apiKey })).body.total).toBe(before + 1);
    expect(await eventsAbout(account, sent.body.id)).toEqual(['message.failed']);
  });

  it('a Cancelled report ends the message failed (refunded)', async () => {
    const sent = await sendFrom(account);
    await pullAs(app);
    await patchAs(app, [{ id: sent.body.id, state: 'Cancelled', recipients: [] }]);
    expect(await messageOf(account, sent.body.id)).toMatchObject({ status: 'failed', error: 'Cancelled on the phone' });
  });

  it('skips unknown, foreign and malformed reports with 2xx and still applies the good ones', async () => {
    const other = await createTestAccount(db());
    const foreign = await sendFrom(other);
    const mine = await sendFrom(account);
    await pullAs(app);
    const res = await patchAs(app, [
      { id: crypto.randomUUID(), state: 'Sent', recipients: [] },
      { id: 'not-a-uuid', state: 'Sent', recipients: [] },
      { id: foreign.body.id, state: 'Failed', recipients: [] },
      { id: mine.body.id, state: 'Teleported' },
      42,
      { id: mine.body.id, state: 'Sent', recipients: [] },
    ]);
    expect(res.status).toBe(204);
    expect((await messageOf(other, foreign.body.id)).status).toBe('queued');
    expect((await messageOf(account, mine.body.id)).status).toBe('sent');
  });

  it('records an inbound SMS once however often the app retries it, its sender in E.164', async () => {
    const payload = {
      messageId: 'c0ffee42',
      message: 'Reply: yes <3 & =',
      sender: '(415) 555-0142',
      phoneNumber: '(415) 555-0142',
      simNumber: 1,
      receivedAt: '2026-11-20T10:00:00.000Z',
    };
    expect((await signedCallback(app, 'sms:received', payload, { id: 'evt-1' })).status).toBe(200);
    expect((await signedCallback(app, 'sms:received', payload, { id: 'evt-1' })).status).toBe(200);
    const inbound = await call(listMessages, {
      path: `/api/v1/messages?direction=inbound&phone=${encodeURIComponent(account.phone)}`,
      apiKey: account.apiKey,
    });
    const copies = inbound.body.data.filter((m: { content: string }) => m.content === payload.message);
    expect(copies).toHaveLength(1);
    expect(copies[0]).toMatchObject({ from: '+14155550142', to: account.phone, status: 'received' });
    expect(await eventsAbout(account, copies[0].id)).toEqual(['message.received']);
  });

  it('keeps two different SMS whose 32-bit app ids collide', async () => {
    const sms = { messageId: '7f3a9c01', sender: '+14155550143', receivedAt: new Date().toISOString() };
    await signedCallback(app, 'sms:received', { ...sms, message: 'first' });
    await signedCallback(app, 'sms:received', { ...sms, message: 'second' });
    const rows = await db().select().from(messages).where(like(messages.deviceMessageId, '7f3a9c01:%'));
    expect(rows.map((row) => row.content).sort()).toEqual(['first', 'second']);
  });

  it('turns system:ping into a heartbeat with the battery level', async () => {
    const res = await signedCallback(app, 'system:ping', {
      health: {
        status: 'pass',
        checks: { 'battery:level': { status: 'pass', observedValue: 87, observedUnit: 'percent' } },
      },
    });
    expect(res.status).toBe(200);
    expect(await phoneOf(account)).toMatchObject({ status: 'online', battery: 87 });
  });

  it('accepts events it does not read (app:started, mms:received) and changes nothing', async () => {
    expect((await signedCallback(app, 'app:started', { simCards: [] })).status).toBe(200);
  });
});

describe('SIM slots through the app', () => {
  it('hands a message for SIM 2 out with simNumber 2, and refuses a slot the app did not report', async () => {
    const account = await createTestAccount(db(), { credits: 10 });
    const app = await pairVerifiedApp(account);
    await pullAs(app);
    await patchAs(app, []);
    const sent = await sendFrom(account, { sim: 2 });
    expect(sent.status).toBe(201);
    const [message] = (await pullAs(app)) as Array<{ id: string; simNumber?: number }>;
    expect(message).toMatchObject({ id: sent.body.id, simNumber: 2 });
    const plain = await sendFrom(account);
    const [withoutSim] = (await pullAs(app)).filter((m) => m.id === plain.body.id);
    expect(withoutSim).not.toHaveProperty('simNumber');
    await call(patchDevice, {
      method: 'PATCH',
      body: { id: app.deviceId, simCards: [{ slotIndex: 0, simNumber: 1, phoneNumber: '****0100' }] },
      headers: bearer(app),
    });
    const refused = await sendFrom(account, { sim: 2 });
    expect(refused.status).toBe(400);
    expect(refused.body.errors).toEqual([expect.objectContaining({ path: 'sim' })]);
  });
});

describe('signed callbacks', () => {
  let account: TestAccount;
  let app: PairedApp;
  beforeAll(async () => {
    account = await createTestAccount(db());
    app = await pairApp(account);
  });

  it('verifies the raw bytes: the Gson-escaped body passes, the same JSON re-serialised does not', async () => {
    const payload = { messageId: 'raw-1', message: '<b> & =', sender: '+14155550177' };
    expect((await signedCallback(app, 'sms:received', payload)).status).toBe(200);
    const reserialised = await signedCallback(
      app,
      'sms:received',
      { ...payload, messageId: 'raw-2' },
      {
        tamper: (body) => JSON.stringify(JSON.parse(body)),
      },
    );
    expect(reserialised.status).toBe(401);
  });

  it('answers 401 to a wrong key, a stale or future timestamp, and missing headers', async () => {
    const payload = { messageId: 'sig-1', message: 'x', sender: '+14155550177' };
    // Well outside the tolerance: whole seconds and the time the calls take would make a timestamp
    // one second past it land inside (the exact edge is tested with a fixed clock in signature.test.ts).
    const off = SIGNATURE_TOLERANCE_SECONDS + 60;
    const cases = [
      await signedCallback(app, 'sms:received', payload, { key: 'not-the-key' }),
      await signedCallback(app, 'sms:received', payload, { timestamp: Math.floor(Date.now() / 1000) - off }),
      await signedCallback(app, 'sms:received', payload, { timestamp: Math.floor(Date.now() / 1000) + off }),
    ];
    for (const res of cases) {
      expect(res.status).toBe(401);
      expect(res.contentType).toBe('application/json');
    }
    const unsigned = await call(callbackRoute, {
      method: 'POST',
      params: { deviceId: app.deviceId },
      body: { id: 'x', event: 'sms:received', payload },
    });
    expect(unsigned.status).toBe(401);
    const inbound = await db().select().from(messages).where(like(messages.deviceMessageId, 'sig-1:%'));
    expect(inbound).toHaveLength(0);
  });

  it('answers 401 for a revoked device and for a device that does not exist', async () => {
    const other = await createTestAccount(db());
    const revoked = await pairApp(other);
    const res = await call(revokeDevice, {
      method: 'DELETE',
      params: { id: other.phoneId, device_id: revoked.deviceId },
      apiKey: other.apiKey,
    });
    expect(res.status).toBe(204);
    expect((await signedCallback(revoked, 'system:ping', {})).status).toBe(401);
    expect((await call(settings, { headers: bearer(revoked) })).status).toBe(401);
    expect((await signedCallback({ ...revoked, deviceId: crypto.randomUUID() }, 'system:ping', {})).status).toBe(401);
    // Its SIM check died with it: the phone is back to unproven, not stuck waiting.
    expect(await call(getPhone, { params: { id: other.phoneId }, apiKey: other.apiKey })).toMatchObject({
      body: { device_connected: false, sim_verification: 'unverified' },
    });
  });
});

describe('GET /api/mobile/v1/events: Server-Sent Events', () => {
  async function openStream(app: PairedApp) {
    const controller = new AbortController();
    const req = new Request('http://localhost:3000/api/mobile/v1/events', {
      headers: { ...bearer(app), accept: 'text/event-stream' },
      signal: controller.signal,
    });
    const res = await events(req, { params: Promise.resolve({}) });
    const reader = res.body!.getReader();
    let buffered = '';
    const decoder = new TextDecoder();
    /** Reads until an event of that name arrives, or fails after `withinMs`. */
    const next = async (name: string, withinMs: number) => {
      const deadline = performance.now() + withinMs;
      const marker = `event: ${name}\ndata: null\n\n`;
      while (!buffered.includes(marker)) {
        const left = deadline - performance.now();
        if (left <= 0) throw new Error(`no ${name} within ${withinMs} ms (got ${JSON.stringify(buffered)})`);
        const chunk = await Promise.race([
          reader.read(),
          new Promise<null>((resolve) => setTimeout(() => resolve(null), left)),
        ]);
        if (chunk?.value) buffered += decoder.decode(chunk.value);
        if (chunk?.done) throw new Error('stream ended');
      }
      buffered = buffered.slice(buffered.indexOf(marker) + marker.length);
    };
    return { res, next, close: () => controller.abort() };
  }

  it('opens as text/event-stream, asks the app to refetch webhooks and settings, and counts as presence', async () => {
    const account = await createTestAccount(db());
    const app = await pairApp(account);
    const stream = await openStream(app);
    try {
      expect(stream.res.status).toBe(200);
      expect(stream.res.headers.get('content-type')).toBe('text/event-stream');
      await stream.next('WebhooksUpdated', 1000);
      await stream.next('SettingsUpdated', 1000);
      expect((await phoneOf(account)).status).toBe('online');
    } finally {
      stream.close();
    }
  });

  it('sends MessageEnqueued within 250 ms of a send made on another connection', async () => {
    const account = await createTestAccount(db());
    const app = await pairVerifiedApp(account);
    const stream = await openStream(app);
    try {
      await stream.next('SettingsUpdated', 1000);
      for (let i = 0; i < 3; i++) {
        expect((await sendFrom(account)).status).toBe(201);
        await stream.next('MessageEnqueued', 250);
      }
    } finally {
      stream.close();
    }
  });

  it.runIf(onRealPostgres())(
    'wakes the stream for a send committed by another app instance (its own pool)',
    async () => {
      const account = await createTestAccount(db());
      const app = await pairVerifiedApp(account);
      const stream = await openStream(app);
      const url = new URL(process.env.TEST_DATABASE_URL!);
      url.pathname = `/${handle().name}`;
      const otherInstance = openPostgres(url.toString(), { max: 2 });
      try {
        await stream.next('SettingsUpdated', 1000);
        await sendMessage(otherInstance.db, account.accountId, {
          origin: 'api',
          from: account.phone,
          to: testNumber(),
          content: 'x',
        });
        await stream.next('MessageEnqueued', 250);
      } finally {
        stream.close();
        await otherInstance.close();
      }
    },
  );

  it('refuses a request without the device token with 401', async () => {
    const res = await events(new Request('http://localhost:3000/api/mobile/v1/events'), {
      params: Promise.resolve({}),
    });
    expect(res.status).toBe(401);
  });
});

describe('tenant isolation on the app surface', () => {
  it('an app token never reaches another account: foreign messages are skipped, phone and codes are 404', async () => {
    const a = await createTestAccount(db());
    const b = await createTestAccount(db());
    const appA = await pairVerifiedApp(a);
    const queuedForB = await sendFrom(b);
    expect((await pullAs(appA)).map((m) => m.id)).not.toContain(queuedForB.body.id);
    await patchAs(appA, [{ id: queuedForB.body.id, state: 'Failed', recipients: [] }]);
    await signedCallback(appA, 'sms:delivered', { messageId: queuedForB.body.id });
    expect((await messageOf(b, queuedForB.body.id)).status).toBe('queued');
    for (const res of [
      await call(pairingCode, { method: 'POST', params: { id: a.phoneId }, apiKey: b.apiKey }),
      await call(listDevices, { params: { id: a.phoneId }, apiKey: b.apiKey }),
      await call(revokeDevice, {
        method: 'DELETE',
        params: { id: a.phoneId, device_id: appA.deviceId },
        apiKey: b.apiKey,
      }),
      await call(revokeDevice, {
        method: 'DELETE',
        params: { id: b.phoneId, device_id: appA.deviceId },
        apiKey: b.apiKey,
      }),
      await call(simCheck, { params: { id: a.phoneId }, body: { code: '123456' }, apiKey: b.apiKey }),
    ]) {
      expect(res.status).toBe(404);
    }
    expect((await call(settings, { headers: bearer(appA) })).status).toBe(200);
  });

  it('a code of another account pairs a phone of that account only', async () => {
    const a = await createTestAccount(db());
    const b = await createTestAccount(db());
    const code = await newPairingCode(b);
    const res = await registerWith(`Code ${code}`);
    expect(res.status).toBe(201);
    expect(res.body.login).toBe(b.phone);
    expect((await phoneOf(a)).sim_verification).not.toBe('pending');
  });
});

describe('removing a phone ends its app', () => {
  it('revokes the app token when the phone is deleted, even if the number is added again', async () => {
    const account = await createTestAccount(db());
    const app = await pairVerifiedApp(account);
    expect(
      (await call(deletePhone, { method: 'DELETE', params: { id: account.phoneId }, apiKey: account.apiKey })).status,
    ).toBe(204);
    expect((await call(settings, { headers: bearer(app) })).status).toBe(401);
    const added = await call(createPhone, { body: { phone: account.phone }, apiKey: account.apiKey });
    expect(added.status).toBe(201);
    expect((await call(settings, { headers: bearer(app) })).status).toBe(401);
  });
});
