import { and, eq } from 'drizzle-orm';
import twilio from 'twilio';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POST as reportStatus } from '@/app/api/v1/device/messages/[id]/status/route';
import { POST as received } from '@/app/api/v1/device/messages/received/route';
import { POST as claim } from '@/app/api/v1/device/outbox/claim/route';
import { POST as createToken } from '@/app/api/v1/twilio/auth-token/route';
import { POST as testWebhook } from '@/app/api/v1/webhooks/[id]/test/route';
import { POST as createWebhook } from '@/app/api/v1/webhooks/route';
import { messages, webhookAttempts, webhookDeliveries } from '@/db/schema';
import { messageSidOf } from '@/lib/protocols/twilio/ids';
import { parseTwiml } from '@/lib/protocols/twilio/twiml';
import { runDeliveryBatch } from '@/lib/webhooks/worker';
import { createTestAccount, type TestAccount, testNumber } from './fixtures';
import { createTestCertificates, type Hit, type Receiver, startReceiver } from './fixtures/tls/receiver';
import { call } from './http';
import { withTestDatabase } from './setup-db';
import { twilioClient } from './twilio-client';

process.env.APP_SECRET ??= 'test-app-secret-for-webhooks-0123456789abcdef';

const { db } = withTestDatabase();

let receiver: Receiver;

beforeAll(async () => {
  const certs = createTestCertificates();
  process.env.NODE_EXTRA_CA_CERTS = certs.caFile;
  receiver = await startReceiver(certs);
});

afterAll(async () => {
  await receiver?.close();
});

async function drain(): Promise<void> {
  const now = new Date(Date.now() + 1000);
  for (let round = 0; round < 20; round++) {
    if ((await runDeliveryBatch(db(), { now, limit: 50 })).length === 0) return;
  }
}

type Setup = { account: TestAccount; sid: string; token: string };

async function withToken(credits = 20): Promise<Setup> {
  const account = await createTestAccount(db(), { credits });
  const res = await call(createToken, { method: 'POST', apiKey: account.apiKey });
  expect(res.status).toBe(201);
  return { account, sid: res.body.account_sid, token: res.body.auth_token };
}

function paramsOf(hit: Hit): Record<string, string> {
  return Object.fromEntries(new URLSearchParams(hit.body));
}

/** What a Twilio receiver checks: the signature over its own URL and the posted parameters. */
function validates(token: string, url: string, hit: Hit): boolean {
  return twilio.validateRequest(token, hit.headers['x-twilio-signature'] ?? '', url, paramsOf(hit));
}

async function inbound(account: TestAccount, from: string, content: string): Promise<string> {
  const res = await call(received, {
    body: { from, content, device_message_id: crypto.randomUUID() },
    apiKey: account.deviceKey,
  });
  expect(res.status, res.text).toBe(201);
  return res.body.id as string;
}

async function twilioWebhook(account: TestAccount, path: string): Promise<string> {
  const res = await call(createWebhook, {
    body: { url: receiver.url(path), events: ['message.received'], format: 'twilio' },
    apiKey: account.apiKey,
  });
  expect(res.status, res.text).toBe(201);
  expect(res.body).toMatchObject({ format: 'twilio', accept_replies: true });
  return res.body.id as string;
}

async function repliesTo(account: TestAccount, inboundId: string) {
  return db()
    .select()
    .from(messages)
    .where(and(eq(messages.accountId, account.accountId), eq(messages.originMessageId, inboundId)));
}

async function replyResults(webhookId: string): Promise<Array<string | null>> {
  const rows = await db()
    .select({ replyResult: webhookAttempts.replyResult })
    .from(webhookAttempts)
    .innerJoin(webhookDeliveries, eq(webhookDeliveries.id, webhookAttempts.deliveryId))
    .where(eq(webhookDeliveries.webhookId, webhookId));
  return rows.map((row) => row.replyResult);
}

const twiml = (xml: string) => () => ({ status: 200, body: xml, headers: { 'content-type': 'text/xml' } });

describe('Twilio status callbacks', () => {
  it('posts Twilio’s status callback for each state, signed so that twilio.validateRequest accepts it', async () => {
    const { account, sid, token } = await withToken();
    receiver.respond(() => ({ status: 200, body: '' }));
    const url = receiver.url('/twilio-status');
    const client = twilioClient(sid, token);
    const created = await client.messages.create({
      from: account.phone,
      to: testNumber(),
      body: 'hi',
      statusCallback: url,
    });
    const [row] = await db().select().from(messages).where(eq(messages.accountId, account.accountId));
    await call(claim, { body: { limit: 5 }, apiKey: account.deviceKey });
    await call(reportStatus, { params: { id: row!.id }, body: { status: 'sent' }, apiKey: account.deviceKey });
    await call(reportStatus, { params: { id: row!.id }, body: { status: 'delivered' }, apiKey: account.deviceKey });
    await drain();
    const hits = receiver.hitsFor('/twilio-status');
    expect(hits.map((hit) => paramsOf(hit).MessageStatus).sort()).toEqual(['delivered', 'sent']);
    for (const hit of hits) {
      expect(hit.headers['content-type']).toContain('application/x-www-form-urlencoded');
      expect(validates(token, url, hit)).toBe(true);
      expect(validates('0'.repeat(32), url, hit)).toBe(false);
      expect(paramsOf(hit)).toMatchObject({
        MessageSid: created.sid,
        SmsSid: created.sid,
        AccountSid: sid,
        From: account.phone,
        To: created.to,
        ApiVersion: '2010-04-01',
      });
    }
  });

  it('names the failure’s ErrorCode in a failed message’s callback', async () => {
    const { account, sid, token } = await withToken();
    receiver.respond(() => ({ status: 200, body: '' }));
    const url = receiver.url('/twilio-failed');
    await twilioClient(sid, token).messages.create({
      from: account.phone,
      to: testNumber(),
      body: 'x',
      statusCallback: url,
    });
    const [row] = await db().select().from(messages).where(eq(messages.accountId, account.accountId));
    await call(claim, { body: { limit: 5 }, apiKey: account.deviceKey });
    await call(reportStatus, {
      params: { id: row!.id },
      body: { status: 'failed', error: 'RESULT_ERROR_FDN_CHECK_FAILURE' },
      apiKey: account.deviceKey,
    });
    await drain();
    const failed = receiver
      .hitsFor('/twilio-failed')
      .map(paramsOf)
      .find((p) => p.MessageStatus === 'failed');
    expect(failed).toMatchObject({ MessageStatus: 'failed', ErrorCode: '30008' });
  });
});

describe('Twilio-format webhooks and TwiML replies', () => {
  it('posts an inbound message as Twilio’s request and sends its TwiML answer to the sender’s phone', async () => {
    const { account, sid, token } = await withToken();
    const path = `/sms-${crypto.randomUUID()}`;
    await twilioWebhook(account, path);
    receiver.respond(
      twiml('<?xml version="1.0" encoding="UTF-8"?><Response><Message>Thanks &amp; see you</Message></Response>'),
    );
    const customer = testNumber();
    const inboundId = await inbound(account, customer, 'Is the shop open?');
    await drain();
    const [hit] = receiver.hitsFor(path);
    expect(validates(token, receiver.url(path), hit!)).toBe(true);
    expect(paramsOf(hit!)).toMatchObject({
      MessageSid: messageSidOf(inboundId),
      AccountSid: sid,
      From: customer,
      To: account.phone,
      Body: 'Is the shop open?',
      NumMedia: '0',
      NumSegments: '1',
    });
    const [reply] = await repliesTo(account, inboundId);
    expect(reply).toMatchObject({
      direction: 'outbound',
      from: account.phone,
      to: customer,
      content: 'Thanks & see you',
    });
    // The phone is handed the reply to send.
    const claimed = await call(claim, { body: { limit: 5 }, apiKey: account.deviceKey });
    expect(JSON.stringify(claimed.body)).toContain('Thanks & see you');
    // Read through the Twilio API, it is an automatic reply.
    expect((await twilioClient(sid, token).messages(messageSidOf(reply!.id)).fetch()).direction).toBe('outbound-reply');
  });

  it('caps TwiML replies per number like every automatic reply, sends nothing for <Response/>, logs malformed TwiML', async () => {
    const { account } = await withToken();
    const path = `/sms-${crypto.randomUUID()}`;
    const webhookId = await twilioWebhook(account, path);
    receiver.respond(twiml('<Response><Message>Auto answer</Message></Response>'));
    const customer = testNumber();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await inbound(account, customer, `hello ${i}`));
    await drain();
    const sent = (await Promise.all(ids.map((id) => repliesTo(account, id)))).flat();
    // AUTO_REPLY_LIMIT (3 an hour per number by default).
    expect(sent).toHaveLength(3);
    expect((await replyResults(webhookId)).some((r) => r?.includes('skipped'))).toBe(true);

    receiver.respond(twiml('<Response/>'));
    const quiet = await inbound(account, testNumber(), 'nothing back');
    await drain();
    receiver.respond(twiml('<Response><Message>unclosed</Response>'));
    const broken = await inbound(account, testNumber(), 'bad answer');
    await drain();
    expect(await repliesTo(account, quiet)).toHaveLength(0);
    expect(await repliesTo(account, broken)).toHaveLength(0);
    expect((await replyResults(webhookId)).filter((r) => r?.startsWith('malformed TwiML'))).toHaveLength(1);
    const deliveries = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, webhookId));
    // Malformed TwiML is not retried: the delivery succeeded.
    expect(deliveries.every((d) => d.status === 'succeeded')).toBe(true);
  });

  it('posts a webhook test as a signed request naming the event', async () => {
    const { account, sid, token } = await withToken();
    const path = `/sms-${crypto.randomUUID()}`;
    const webhookId = await twilioWebhook(account, path);
    receiver.respond(() => ({ status: 204 }));
    expect(
      (await call(testWebhook, { params: { id: webhookId }, method: 'POST', apiKey: account.apiKey })).status,
    ).toBe(202);
    await drain();
    const [hit] = receiver.hitsFor(path);
    expect(paramsOf(hit!)).toEqual({ AccountSid: sid, ApiVersion: '2010-04-01', EventType: 'webhook.test' });
    expect(validates(token, receiver.url(path), hit!)).toBe(true);
  });

  it('refuses a twilio-format webhook before the Auth Token exists, or for events Twilio does not post', async () => {
    const account = await createTestAccount(db());
    const early = await call(createWebhook, {
      body: { url: receiver.url('/x'), events: ['message.received'], format: 'twilio' },
      apiKey: account.apiKey,
    });
    expect(early.status).toBe(400);
    expect(early.body.errors[0].path).toBe('format');
    await call(createToken, { method: 'POST', apiKey: account.apiKey });
    const wrong = await call(createWebhook, {
      body: { url: receiver.url('/x'), events: ['phone.offline'], format: 'twilio' },
      apiKey: account.apiKey,
    });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors[0].path).toBe('events');
  });
});

describe('TwiML', () => {
  it('reads <Message> elements, their Body and to, and refuses what it does not know', () => {
    expect(parseTwiml('<Response/>')).toEqual({ replies: [] });
    expect(parseTwiml('<Response></Response>')).toEqual({ replies: [] });
    expect(
      parseTwiml(
        '<Response><Message to="+14155550100"><Body>one</Body></Message><Message>two &#x1F600;</Message></Response>',
      ),
    ).toEqual({ replies: [{ content: 'one', to: '+14155550100' }, { content: 'two 😀' }] });
    for (const bad of [
      '<Response><Redirect>/x</Redirect></Response>',
      '<Response><Message>a & b</Message></Response>',
      '<Response><Message>&nope;</Message></Response>',
      '<Response><Message><b>x</b></Message></Response>',
      'hello',
      `<Response><Message>${'x'.repeat(1601)}</Message></Response>`,
    ]) {
      expect(parseTwiml(bad), bad).toHaveProperty('error');
    }
  });

  it('reads declarations, comments, self-closing and single-quoted forms, and refuses an answer over 16 KiB', () => {
    expect(
      parseTwiml(
        '\uFEFF<?xml version="1.0"?>\n<!-- a --><Response>\n  <Message to=\'+14155550100\' >hi<!-- b --></Message>\n' +
          '  <Message/><Message to="+14155550101" /><Message>\n <Body> two </Body>\n</Message></Response>\n',
      ),
    ).toEqual({ replies: [{ content: 'hi', to: '+14155550100' }, { content: 'two' }] });
    expect(parseTwiml('<Response><Message>unclosed</Response>')).toHaveProperty('error');
    expect(parseTwiml('<Response><Message to="x>ok</Message></Response>')).toHaveProperty('error');
    expect(parseTwiml('<Response><Message><Body><Body>x</Body></Body></Message></Response>')).toHaveProperty('error');
    expect(parseTwiml(`<Response>${' '.repeat(16 * 1024)}</Response>`)).toEqual({
      error: 'malformed TwiML: the answer is over 16 KiB',
    });
  });

  it('reads a <Message> with 16,300 spaces before its `>` in linear time', () => {
    const answer = `<Response><Message${' '.repeat(16_300)}>ok</Message></Response>`;
    const started = performance.now();
    for (let i = 0; i < 20; i++) expect(parseTwiml(answer)).toEqual({ replies: [{ content: 'ok' }] });
    // The attribute regular expression took ~0.22 s per parse; a scan takes well under a millisecond.
    expect(performance.now() - started).toBeLessThan(500);
  });
});
