import { and, eq, ne, sql } from 'drizzle-orm';
import { afterEach, describe, expect, it } from 'vitest';
import { POST as exportInbox } from '@/app/api/3rdparty/v1/inbox/export/route';
import { POST as refreshInbox } from '@/app/api/3rdparty/v1/inbox/refresh/route';
import { GET as inbox } from '@/app/api/3rdparty/v1/inbox/route';
import { POST as integratorSend } from '@/app/api/3rdparty/v1/messages/route';
import { GET as events } from '@/app/api/mobile/v1/events/route';
import { GET as webhooksList } from '@/app/api/mobile/v1/webhooks/route';
import { POST as sendRoute } from '@/app/api/v1/messages/route';
import { GET as listExports, POST as requestExport } from '@/app/api/v1/phones/[id]/inbox-export/route';
import { GET as getPhone } from '@/app/api/v1/phones/[id]/route';
import { events as eventsTable, messages } from '@/db/schema';
import { createTestAccount, type TestAccount } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';
import { bearer, type PairedApp, pairVerifiedApp, pullAs, signedCallback } from '../smsgate-app';

// Wire shapes, from the app at 0cdc5d8 and the reference server at 22074dd:
// - the SSE event and its data: app modules/events/ExternalEventType.kt (`MessagesExportRequested`),
//   modules/orchestrator/EventsRouter.kt (data required), modules/receiver/events/
//   MessagesExportRequestedEvent.kt (Payload: since, until, messageTypes as "SMS,MMS", triggerWebhooks);
// - the re-sent SMS: app modules/receiver/ReceiverService.kt + modules/webhooks/payload/SmsEventPayload.kt
//   (SmsReceived: messageId, sender, recipient, simNumber, message, receivedAt);
// - data SMS and MMS: SmsEventPayload.SmsDataReceived (data in base64), MmsReceivedPayload.kt,
//   MmsDownloadedPayload.kt, AppStartedPayload.kt; event names modules/webhooks/domain/WebHookEvent.kt;
// - the integrator routes: server internal/sms-gateway/handlers/inbox/3rdparty.go (POST /inbox/refresh,
//   202), handlers/messages/3rdparty.go (POST /messages/inbox/export, 202 + `Deprecation: true`),
//   smsgateway.InboxRefreshRequest in internal/sms-gateway/openapi/docs.go.

const { db } = withTestDatabase();

type Stream = { next: (name: string, withinMs: number) => Promise<string>; close: () => void };
const open: Stream[] = [];

afterEach(() => {
  for (const stream of open.splice(0)) stream.close();
});

async function openStream(app: PairedApp): Promise<Stream> {
  const controller = new AbortController();
  const req = new Request('http://localhost:3000/api/mobile/v1/events', {
    headers: { ...bearer(app), accept: 'text/event-stream' },
    signal: controller.signal,
  });
  const res = await events(req, { params: Promise.resolve({}) });
  const reader = res.body!.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  /** Reads until an event of that name arrives and answers its data line. */
  const next = async (name: string, withinMs: number) => {
    const deadline = performance.now() + withinMs;
    const pattern = new RegExp(`event: ${name}\\ndata: (.*)\\n\\n`);
    let match = pattern.exec(buffered);
    while (!match) {
      const left = deadline - performance.now();
      if (left <= 0) throw new Error(`no ${name} within ${withinMs} ms (got ${JSON.stringify(buffered)})`);
      const chunk = await Promise.race([
        reader.read(),
        new Promise<null>((resolve) => setTimeout(() => resolve(null), left)),
      ]);
      if (chunk?.value) buffered += decoder.decode(chunk.value);
      if (chunk?.done) throw new Error('stream ended');
      match = pattern.exec(buffered);
    }
    buffered = buffered.slice(match.index + match[0].length);
    return match[1] ?? '';
  };
  const stream = { next, close: () => controller.abort() };
  open.push(stream);
  return stream;
}

async function connectedApp(): Promise<{ account: TestAccount; app: PairedApp; stream: Stream }> {
  const account = await createTestAccount(db());
  const app = await pairVerifiedApp(account);
  const stream = await openStream(app);
  await stream.next('SettingsUpdated', 2000);
  return { account, app, stream };
}

/** The account's inbound messages but the SIM check's loopback. */
function inboundOf(account: TestAccount) {
  return db()
    .select()
    .from(messages)
    .where(
      and(
        eq(messages.accountId, account.accountId),
        eq(messages.direction, 'inbound'),
        ne(messages.from, account.phone),
      ),
    );
}

/** The integrator API's Basic auth: any user name, the API key as password. */
const basic = (key: string) => ({ authorization: `Basic ${Buffer.from(`anyone:${key}`).toString('base64')}` });

const hoursAgo = (hours: number) => new Date(Date.now() - hours * 3_600_000);

/** What the app re-sends for one SMS of its inbox (SmsEventPayload.SmsReceived). */
function smsReceived(index: number, receivedAt: Date) {
  return {
    messageId: `e${index.toString(16).padStart(7, '0')}`,
    message: `Missed message ${index}`,
    sender: '+14155550160',
    recipient: null,
    phoneNumber: '+14155550160',
    simNumber: 1,
    receivedAt: receivedAt.toISOString(),
  };
}

describe('POST /api/v1/phones/{id}/inbox-export', () => {
  it('sends MessagesExportRequested with the app’s payload on the phone’s open stream, and answers 202', async () => {
    const { account, stream } = await connectedApp();
    const since = hoursAgo(24);
    const until = new Date();
    const res = await call(requestExport, {
      method: 'POST',
      params: { id: account.phoneId },
      body: { since: since.toISOString(), until: until.toISOString() },
      apiKey: account.apiKey,
    });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ phone_id: account.phoneId, recovered: 0, repeated: 0, message_types: ['SMS'] });
    const data = JSON.parse(await stream.next('MessagesExportRequested', 2000));
    expect(data).toEqual({
      since: since.toISOString(),
      until: until.toISOString(),
      messageTypes: 'SMS',
      triggerWebhooks: true,
    });
    // The app's date format, yyyy-MM-dd'T'HH:mm:ss.SSSXXX (extensions/GsonBuilder.kt).
    expect(data.since).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  it('counts what came back: only the missing SMS become messages (with events), repeats change nothing', async () => {
    const { account, app, stream } = await connectedApp();
    const known = smsReceived(1, hoursAgo(3));
    await signedCallback(app, 'sms:received', known);
    const res = await call(requestExport, {
      method: 'POST',
      params: { id: account.phoneId },
      body: { since: hoursAgo(6).toISOString(), until: new Date().toISOString() },
      apiKey: account.apiKey,
    });
    await stream.next('MessagesExportRequested', 2000);
    // The app re-sends its whole inbox of the period, the known SMS among them, under new call ids.
    for (const sms of [known, smsReceived(2, hoursAgo(2)), smsReceived(3, hoursAgo(1)), smsReceived(4, hoursAgo(1))]) {
      expect((await signedCallback(app, 'sms:received', sms)).status).toBe(200);
    }
    const rows = await inboundOf(account);
    expect(rows.map((row) => row.content).sort()).toEqual([
      'Missed message 1',
      'Missed message 2',
      'Missed message 3',
      'Missed message 4',
    ]);
    const received = await db()
      .select({ type: eventsTable.type })
      .from(eventsTable)
      .where(
        and(
          eq(eventsTable.accountId, account.accountId),
          eq(eventsTable.type, 'message.received'),
          sql`${eventsTable.payload}->>'from' = '+14155550160'`,
        ),
      );
    expect(received).toHaveLength(4);
    const list = await call(listExports, { params: { id: account.phoneId }, apiKey: account.apiKey });
    expect(list.status).toBe(200);
    expect(list.body[0]).toMatchObject({ id: res.body.id, recovered: 3, repeated: 1 });
  });

  it('does not count an SMS received outside the period', async () => {
    const { account, app, stream } = await connectedApp();
    await call(requestExport, {
      method: 'POST',
      params: { id: account.phoneId },
      body: { since: hoursAgo(2).toISOString(), until: hoursAgo(1).toISOString() },
      apiKey: account.apiKey,
    });
    await stream.next('MessagesExportRequested', 2000);
    await signedCallback(app, 'sms:received', smsReceived(9, hoursAgo(5)));
    const list = await call(listExports, { params: { id: account.phoneId }, apiKey: account.apiKey });
    expect(list.body[0]).toMatchObject({ recovered: 0, repeated: 0 });
  });

  it('refuses with 409 PHONE_NOT_CONNECTED a phone without an open stream, and one not paired with the app', async () => {
    const account = await createTestAccount(db());
    const body = { since: hoursAgo(2).toISOString(), until: new Date().toISOString() };
    const simulator = await call(requestExport, {
      method: 'POST',
      params: { id: account.phoneId },
      body,
      apiKey: account.apiKey,
    });
    expect(simulator.status).toBe(409);
    expect(simulator.headers.get('content-type')).toContain('application/problem+json');
    expect(simulator.body.code).toBe('PHONE_NOT_CONNECTED');
    await pairVerifiedApp(account);
    const noStream = await call(requestExport, {
      method: 'POST',
      params: { id: account.phoneId },
      body,
      apiKey: account.apiKey,
    });
    expect(noStream.status).toBe(409);
    expect(noStream.body.detail).toMatch(/event stream/);
  });

  it('refuses a period over 30 days, backwards or in the future with 400', async () => {
    const { account } = await connectedApp();
    for (const body of [
      { since: hoursAgo(24 * 31).toISOString(), until: new Date().toISOString() },
      { since: hoursAgo(1).toISOString(), until: hoursAgo(2).toISOString() },
      { since: new Date(Date.now() + 3_600_000).toISOString(), until: new Date(Date.now() + 7_200_000).toISOString() },
      { since: 'yesterday', until: new Date().toISOString() },
    ]) {
      const res = await call(requestExport, {
        method: 'POST',
        params: { id: account.phoneId },
        body,
        apiKey: account.apiKey,
      });
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
    }
  });

  it('tenant isolation: another account’s phone is 404 for the request and the list', async () => {
    const { account } = await connectedApp();
    const other = await createTestAccount(db());
    const body = { since: hoursAgo(2).toISOString(), until: new Date().toISOString() };
    const res = await call(requestExport, {
      method: 'POST',
      params: { id: account.phoneId },
      body,
      apiKey: other.apiKey,
    });
    expect(res.status).toBe(404);
    const list = await call(listExports, { params: { id: account.phoneId }, apiKey: other.apiKey });
    expect(list.status).toBe(404);
  });
});

describe('integrator routes: POST /3rdparty/v1/inbox/refresh and /messages/inbox/export', () => {
  it('inbox/refresh passes deviceId, messageTypes and webhookDelivery on, and answers 202 with no body', async () => {
    const { account, stream } = await connectedApp();
    const res = await call(refreshInbox, {
      method: 'POST',
      body: {
        deviceId: account.phoneId,
        since: '2026-11-01T00:00:00Z',
        until: '2026-11-02T00:00:00Z',
        messageTypes: ['SMS', 'MMS'],
        webhookDelivery: 'Individual',
      },
      headers: basic(account.apiKey),
    });
    expect(res.status).toBe(202);
    expect(JSON.parse(await stream.next('MessagesExportRequested', 2000))).toEqual({
      since: '2026-11-01T00:00:00.000Z',
      until: '2026-11-02T00:00:00.000Z',
      messageTypes: 'SMS,MMS',
      triggerWebhooks: true,
    });
  });

  it('without deviceId asks every connected phone; none connected is 409', async () => {
    const { account, stream } = await connectedApp();
    const res = await call(refreshInbox, {
      method: 'POST',
      body: { since: '2026-11-01T00:00:00Z', until: '2026-11-02T00:00:00Z', triggerWebhooks: false },
      headers: basic(account.apiKey),
    });
    expect(res.status).toBe(202);
    expect(JSON.parse(await stream.next('MessagesExportRequested', 2000))).toMatchObject({ triggerWebhooks: false });
    const lonely = await createTestAccount(db());
    const none = await call(refreshInbox, {
      method: 'POST',
      body: { since: '2026-11-01T00:00:00Z', until: '2026-11-02T00:00:00Z' },
      headers: basic(lonely.apiKey),
    });
    expect(none.status).toBe(409);
    expect(none.body.code).toBe('PHONE_NOT_CONNECTED');
  });

  it('messages/inbox/export is SMS only with Deprecation: true; another account’s deviceId is 404', async () => {
    const { account, stream } = await connectedApp();
    const res = await call(exportInbox, {
      method: 'POST',
      body: { deviceId: account.phoneId, since: '2026-11-01T00:00:00Z', until: '2026-11-02T00:00:00Z' },
      headers: basic(account.apiKey),
    });
    expect(res.status).toBe(202);
    expect(res.headers.get('deprecation')).toBe('true');
    expect(JSON.parse(await stream.next('MessagesExportRequested', 2000))).toMatchObject({ messageTypes: 'SMS' });
    const other = await createTestAccount(db());
    const foreign = await call(refreshInbox, {
      method: 'POST',
      body: { deviceId: account.phoneId, since: '2026-11-01T00:00:00Z', until: '2026-11-02T00:00:00Z' },
      headers: basic(other.apiKey),
    });
    expect(foreign.status).toBe(404);
  });
});

describe('data SMS, MMS and app:started from the app', () => {
  it('hands the app a webhook for each event it reads, the new ones included', async () => {
    const account = await createTestAccount(db());
    const app = await pairVerifiedApp(account);
    const res = await call(webhooksList, { headers: bearer(app) });
    expect(res.body.map((hook: { event: string }) => hook.event)).toEqual(
      expect.arrayContaining(['sms:data-received', 'mms:received', 'mms:downloaded', 'app:started', 'sms:cancelled']),
    );
  });

  it('sms:data-received becomes an inbound message of kind data, its bytes in base64, once', async () => {
    const account = await createTestAccount(db());
    const app = await pairVerifiedApp(account);
    const payload = {
      messageId: 'd47a0001',
      data: Buffer.from([0x01, 0x02, 0xff]).toString('base64'),
      sender: '+14155550170',
      recipient: null,
      phoneNumber: '+14155550170',
      simNumber: 1,
      receivedAt: new Date().toISOString(),
    };
    expect((await signedCallback(app, 'sms:data-received', payload)).status).toBe(200);
    expect((await signedCallback(app, 'sms:data-received', payload)).status).toBe(200);
    const rows = await inboundOf(account);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ kind: 'data', content: 'AQL/', from: '+14155550170', status: 'received' });
    const [event] = await db()
      .select({ payload: eventsTable.payload })
      .from(eventsTable)
      .where(
        and(
          eq(eventsTable.accountId, account.accountId),
          eq(eventsTable.type, 'message.received'),
          sql`${eventsTable.payload}->>'from' = '+14155550170'`,
        ),
      );
    expect(event?.payload).toMatchObject({ kind: 'data' });
    // The integrator's inbox lists it as SMSGate's DATA_SMS (server 22074dd, smsgateway.IncomingMessageType).
    const listed = async (type: string) =>
      (await call(inbox, { path: `/3rdparty/v1/inbox?type=${type}`, headers: basic(account.apiKey) })).body;
    expect(await listed('DATA_SMS')).toEqual([expect.objectContaining({ type: 'DATA_SMS', contentPreview: 'AQL/' })]);
    expect(await listed('SMS')).not.toContainEqual(expect.objectContaining({ contentPreview: 'AQL/' }));
  });

  it('mms:received and mms:downloaded become kind mms with subject, size and attachment types, no bytes', async () => {
    const account = await createTestAccount(db());
    const app = await pairVerifiedApp(account);
    const receivedAt = new Date().toISOString();
    await signedCallback(app, 'mms:received', {
      messageId: 'mms-1',
      sender: '+14155550171',
      recipient: null,
      simNumber: 1,
      phoneNumber: '+14155550171',
      transactionId: 'T1',
      subject: 'Holiday',
      size: 48213,
      contentClass: 'IMAGE_BASIC',
      receivedAt,
    });
    await signedCallback(app, 'mms:downloaded', {
      messageId: 'mms-1',
      sender: '+14155550171',
      phoneNumber: '+14155550171',
      body: 'See the beach',
      subject: 'Holiday',
      attachments: [
        { partId: 1, contentType: 'image/jpeg', name: 'beach.jpg', size: 48000, data: 'AAAA' },
        { partId: 2, contentType: 'text/plain', name: null, size: 13, data: null },
      ],
      receivedAt,
    });
    const rows = (await inboundOf(account)).sort((a, b) =>
      (a.details?.event ?? '').localeCompare(b.details?.event ?? ''),
    );
    expect(rows.map((row) => row.kind)).toEqual(['mms', 'mms']);
    expect(rows[0]).toMatchObject({
      content: 'See the beach',
      details: {
        event: 'mms:downloaded',
        subject: 'Holiday',
        attachment_count: 2,
        attachment_types: ['image/jpeg', 'text/plain'],
      },
    });
    expect(rows[1]).toMatchObject({
      content: 'Holiday',
      details: {
        event: 'mms:received',
        subject: 'Holiday',
        size: 48213,
        content_class: 'IMAGE_BASIC',
        transaction_id: 'T1',
      },
    });
    expect(JSON.stringify(rows)).not.toContain('AAAA');
  });

  it('app:started counts as the phone coming online; sms:cancelled is accepted', async () => {
    const account = await createTestAccount(db());
    const app = await pairVerifiedApp(account);
    expect((await signedCallback(app, 'app:started', { simCards: [] })).status).toBe(200);
    const phone = await call(getPhone, { params: { id: account.phoneId }, apiKey: account.apiKey });
    expect(phone.body.status).toBe('online');
    const cancelled = await signedCallback(app, 'sms:cancelled', {
      messageId: crypto.randomUUID(),
      recipient: '+14155550172',
      phoneNumber: '+14155550172',
      cancelledAt: new Date().toISOString(),
    });
    expect(cancelled.status).toBe(200);
  });
});

describe('outbound data SMS', () => {
  // The app's pull item: GatewayApi.Message `dataMessage: { data, port }` (MessageContent.Data, port a UShort),
  // read before textMessage (GatewayApi.kt, Message.content); the integrator's `dataMessage` the same shape
  // (client-go smsgateway.DataMessage, as the app's localserver/domain/messages/DataMessage.kt).
  it('POST /api/v1/messages with data and port hands the app a dataMessage only', async () => {
    const account = await createTestAccount(db());
    const app = await pairVerifiedApp(account);
    const res = await call(sendRoute, {
      body: { from: account.phone, to: '+14155550180', data: 'AQID', port: 2948 },
      apiKey: account.apiKey,
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ kind: 'data', content: 'AQID', data_port: 2948, segments: 1 });
    const pulled = { body: (await pullAs(app)) as unknown as Record<string, any>[] };
    const item = pulled.body.find((message) => message.id === res.body.id) ?? {};
    expect(item.dataMessage).toEqual({ data: 'AQID', port: 2948 });
    expect(item).not.toHaveProperty('textMessage');
    expect(item).not.toHaveProperty('message');
  });

  it('refuses a data SMS from a simulator phone, without port, with content too, or over 140 bytes', async () => {
    const account = await createTestAccount(db());
    const simulator = await call(sendRoute, {
      body: { from: account.phone, to: '+14155550181', data: 'AQID', port: 2948 },
      apiKey: account.apiKey,
    });
    expect(simulator.status).toBe(400);
    expect(simulator.body.detail ?? JSON.stringify(simulator.body)).toMatch(/SMSGate app/);
    for (const body of [
      { from: account.phone, to: '+14155550181', data: 'AQID' },
      { from: account.phone, to: '+14155550181', data: 'AQID', port: 1, content: 'hi' },
      { from: account.phone, to: '+14155550181', data: Buffer.alloc(141).toString('base64'), port: 1 },
      { from: account.phone, to: '+14155550181', data: 'not base64!', port: 1 },
    ]) {
      const res = await call(sendRoute, { body, apiKey: account.apiKey });
      expect(res.status).toBe(400);
    }
  });

  it('the integrator API’s dataMessage reaches the app the same way', async () => {
    const account = await createTestAccount(db());
    const app = await pairVerifiedApp(account);
    const res = await call(integratorSend, {
      body: { deviceId: account.phoneId, phoneNumbers: ['+14155550182'], dataMessage: { data: 'BAUG', port: 16001 } },
      headers: basic(account.apiKey),
    });
    expect(res.status).toBe(202);
    const pulled = { body: (await pullAs(app)) as unknown as Record<string, any>[] };
    expect(pulled.body.map((message: { dataMessage?: unknown }) => message.dataMessage)).toContainEqual({
      data: 'BAUG',
      port: 16001,
    });
    const noDevice = await call(integratorSend, {
      body: { phoneNumbers: ['+14155550182'], dataMessage: { data: 'BAUG', port: 16001 } },
      headers: basic(account.apiKey),
    });
    expect(noDevice.status).toBe(400);
    const simulatorAccount = await createTestAccount(db());
    const simulator = await call(integratorSend, {
      body: {
        deviceId: simulatorAccount.phoneId,
        phoneNumbers: ['+14155550182'],
        dataMessage: { data: 'BAUG', port: 16001 },
      },
      headers: basic(simulatorAccount.apiKey),
    });
    expect(simulator.status).toBe(400);
    expect(simulator.text).toMatch(/SMSGate app/);
  });
});
