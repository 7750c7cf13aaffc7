import { eq } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { POST as createMessage } from '@/app/2010-04-01/Accounts/[accountSid]/Messages.json/route';
import { POST as reportStatus } from '@/app/api/v1/device/messages/[id]/status/route';
import { POST as claim } from '@/app/api/v1/device/outbox/claim/route';
import { POST as createToken } from '@/app/api/v1/twilio/auth-token/route';
import { GET as settings } from '@/app/api/v1/twilio/route';
import { auditLog, messages, optOuts, phoneGroups } from '@/db/schema';
import { messagingServiceSidOf } from '@/lib/protocols/twilio/ids';
import { resetKeyBuckets } from '@/lib/rate-limit/key-bucket';
import { createTestAccount, type TestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { withTestDatabase } from '../setup-db';
import { TWILIO_BASE, twilioClient } from '../twilio-client';

process.env.APP_SECRET ??= 'test-app-secret-for-webhooks-0123456789abcdef';

const { db } = withTestDatabase();

type Credentials = { account_sid: string; auth_token: string };

async function withToken(credits = 10): Promise<{ account: TestAccount; creds: Credentials }> {
  const account = await createTestAccount(db(), { credits });
  const res = await call(createToken, { method: 'POST', apiKey: account.apiKey });
  expect(res.status).toBe(201);
  return { account, creds: res.body };
}

async function restError(promise: Promise<unknown>): Promise<{ code: number; status: number; moreInfo: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { code: number; status: number; moreInfo: string };
  }
  throw new Error('expected a RestException');
}

describe('Twilio credentials', () => {
  it('creates an Auth Token shown once, shows the SID alone, rotates, and audits both', async () => {
    const account = await createTestAccount(db());
    const before = await call(settings, { apiKey: account.apiKey });
    expect(before.body).toEqual({ account_sid: expect.stringMatching(/^AC[0-9a-f]{32}$/), has_auth_token: false });
    const first = await call(createToken, { method: 'POST', apiKey: account.apiKey });
    expect(first.body).toEqual({
      account_sid: before.body.account_sid,
      auth_token: expect.stringMatching(/^[0-9a-f]{32}$/),
    });
    const after = await call(settings, { apiKey: account.apiKey });
    expect(after.body).toEqual({ account_sid: before.body.account_sid, has_auth_token: true });
    expect(JSON.stringify(after.body)).not.toContain(first.body.auth_token);

    const second = await call(createToken, { method: 'POST', apiKey: account.apiKey });
    expect(second.body.auth_token).not.toBe(first.body.auth_token);
    // The replaced token stops working at once; the new one works.
    const stale = twilioClient(first.body.account_sid, first.body.auth_token);
    expect((await restError(stale.api.v2010.accounts(first.body.account_sid).fetch())).code).toBe(20003);
    const fresh = twilioClient(second.body.account_sid, second.body.auth_token);
    const fetched = await fresh.api.v2010.accounts(second.body.account_sid).fetch();
    expect(fetched).toMatchObject({ sid: second.body.account_sid, status: 'active' });

    const actions = await db()
      .select({ action: auditLog.action })
      .from(auditLog)
      .where(eq(auditLog.accountId, account.accountId));
    expect(actions.map((a) => a.action).filter((a) => a.startsWith('twilio'))).toEqual(
      expect.arrayContaining(['twilio_auth_token.created', 'twilio_auth_token.rotated']),
    );
  });
});

describe('the official twilio client against the Messages API', () => {
  it('sends from a phone, fetches it, and reads its states as Twilio’s', async () => {
    const { account, creds } = await withToken();
    const client = twilioClient(creds.account_sid, creds.auth_token);
    const to = testNumber();
    const created = await client.messages.create({ from: account.phone, to, body: 'Your code is 1234' });
    expect(created).toMatchObject({
      sid: expect.stringMatching(/^SM[0-9a-f]{32}$/),
      accountSid: creds.account_sid,
      apiVersion: '2010-04-01',
      from: account.phone,
      to,
      body: 'Your code is 1234',
      status: 'queued',
      direction: 'outbound-api',
      numSegments: '1',
      numMedia: '0',
      errorCode: null,
      price: null,
    });
    expect(created.dateCreated).toBeInstanceOf(Date);
    expect(Number.isNaN(created.dateCreated.getTime())).toBe(false);

    const [row] = await db().select().from(messages).where(eq(messages.accountId, account.accountId));
    await call(claim, { body: { limit: 5 }, apiKey: account.deviceKey });
    expect((await client.messages(created.sid).fetch()).status).toBe('sending');
    await call(reportStatus, { params: { id: row!.id }, body: { status: 'sent' }, apiKey: account.deviceKey });
    expect((await client.messages(created.sid).fetch()).status).toBe('sent');
    await call(reportStatus, { params: { id: row!.id }, body: { status: 'delivered' }, apiKey: account.deviceKey });
    const delivered = await client.messages(created.sid).fetch();
    expect(delivered).toMatchObject({ sid: created.sid, status: 'delivered' });
    expect(delivered.dateSent).toBeInstanceOf(Date);

    // A final message's content can be removed, as Twilio deletes it.
    expect(await client.messages(created.sid).remove()).toBe(true);
    expect((await client.messages(created.sid).fetch()).body).toBe('');
  });

  it('sends through a phone group by its MessagingServiceSid, and lists the account’s numbers', async () => {
    const { account, creds } = await withToken();
    const client = twilioClient(creds.account_sid, creds.auth_token);
    const serviceSid = messagingServiceSidOf(account.defaultGroupId);
    const created = await client.messages.create({ messagingServiceSid: serviceSid, to: testNumber(), body: 'Hi' });
    expect(created).toMatchObject({ messagingServiceSid: serviceSid, from: account.phone, status: 'queued' });
    const numbers = await client.incomingPhoneNumbers.list();
    expect(numbers.map((n) => n.phoneNumber)).toEqual([account.phone]);
    expect(numbers[0]!.capabilities).toMatchObject({ sms: true, mms: false });
  });

  it('lists across pages with each() and list(), filtered by To', async () => {
    const { account, creds } = await withToken(20);
    const client = twilioClient(creds.account_sid, creds.auth_token);
    const to = testNumber();
    const sids: string[] = [];
    for (let i = 0; i < 5; i++) {
      sids.push((await client.messages.create({ from: account.phone, to, body: `n${i}` })).sid);
    }
    await client.messages.create({ from: account.phone, to: testNumber(), body: 'elsewhere' });
    const seen: string[] = [];
    await new Promise<void>((resolve, reject) => {
      client.messages.each({
        to,
        pageSize: 2,
        callback: (message) => {
          seen.push(message.sid);
        },
        done: (error?: Error) => (error ? reject(error) : resolve()),
      });
    });
    expect(seen.sort()).toEqual([...sids].sort());
    const listed = await client.messages.list({ pageSize: 2, limit: 6 });
    expect(listed).toHaveLength(6);
    const page = await client.messages.page({ pageSize: 2 });
    expect(page.nextPageUrl).toContain('PageToken=');
    const next = await page.nextPage();
    expect(next?.instances).toHaveLength(2);
    expect(next?.instances.map((m) => m.sid)).not.toContain(page.instances[0]!.sid);
    expect(await client.messages.list({ dateSent: new Date(), limit: 100 })).toHaveLength(6);
    expect(await client.messages.list({ dateSentBefore: new Date('2000-01-01'), limit: 100 })).toHaveLength(0);
  });

  it('schedules a message with SendAt and cancels it with Status=canceled, refunded', async () => {
    const { account, creds } = await withToken(5);
    const client = twilioClient(creds.account_sid, creds.auth_token);
    const scheduled = await client.messages.create({
      from: account.phone,
      to: testNumber(),
      body: 'Reminder: your appointment is tomorrow',
      sendAt: new Date(Date.now() + 3600_000),
      scheduleType: 'fixed',
      validityPeriod: 600,
    });
    expect(scheduled.status).toBe('scheduled');
    const [charged] = await db().select().from(phoneGroups).where(eq(phoneGroups.id, account.defaultGroupId));
    expect(charged!.balance).toBe(4);
    const canceled = await client.messages(scheduled.sid).update({ status: 'canceled' });
    expect(canceled.status).toBe('canceled');
    const [refunded] = await db().select().from(phoneGroups).where(eq(phoneGroups.id, account.defaultGroupId));
    expect(refunded!.balance).toBe(5);
    // Canceling one a phone already holds is refused with Twilio's code.
    const sent = await client.messages.create({ from: account.phone, to: testNumber(), body: 'now' });
    await call(claim, { body: { limit: 5 }, apiKey: account.deviceKey });
    expect((await restError(client.messages(sent.sid).update({ status: 'canceled' }))).status).toBe(409);
  });

  it('answers Twilio’s error codes, read by the client into RestException', async () => {
    const { account, creds } = await withToken(1);
    const client = twilioClient(creds.account_sid, creds.auth_token);
    const to = testNumber();
    const cases: Array<[() => Promise<unknown>, number, number]> = [
      [() => client.messages.create({ from: account.phone, to: 'not-a-number', body: 'x' }), 21211, 400],
      [() => client.messages.create({ from: testNumber(), to, body: 'x' }), 21606, 400],
      [() => client.messages.create({ from: account.phone, to }), 21602, 400],
      [() => client.messages.create({ from: account.phone, to, body: 'x'.repeat(1601) }), 21617, 400],
      [
        () => client.messages.create({ from: account.phone, to, body: 'x', mediaUrl: ['https://example.com/a.png'] }),
        21620,
        400,
      ],
      [() => client.messages.create({ messagingServiceSid: `MG${'0'.repeat(32)}`, to, body: 'x' }), 21701, 404],
      [() => client.messages(`SM${'0'.repeat(32)}`).fetch(), 20404, 404],
    ];
    for (const [request, code, status] of cases) {
      const error = await restError(request());
      expect({ code: error.code, status: error.status }).toEqual({ code, status });
      expect(error.moreInfo).toBe(`https://www.twilio.com/docs/errors/${code}`);
    }
    await db().insert(optOuts).values({ accountId: account.accountId, phone: to, source: 'manual' });
    expect((await restError(client.messages.create({ from: account.phone, to, body: 'x' }))).code).toBe(21610);
    await client.messages.create({ from: account.phone, to: testNumber(), body: 'the last credit' });
    const broke = await restError(client.messages.create({ from: account.phone, to: testNumber(), body: 'x' }));
    expect({ code: broke.code, status: broke.status }).toEqual({ code: 10001, status: 402 });
  });

  it('refuses a wrong Auth Token (20003) and answers another account’s SID with 404 (20404)', async () => {
    const { creds } = await withToken();
    const other = await withToken();
    const wrong = twilioClient(creds.account_sid, 'f'.repeat(32));
    expect(await restError(wrong.messages.list())).toMatchObject({ code: 20003, status: 401 });
    // Authenticated as one account, addressing the other's SID.
    const client = twilioClient(creds.account_sid, creds.auth_token);
    const foreign = client.api.v2010.accounts(other.creds.account_sid);
    expect(await restError(foreign.messages.list())).toMatchObject({ code: 20404, status: 404 });
    expect(await restError(foreign.fetch())).toMatchObject({ code: 20404, status: 404 });
    // Another account's message, by its SID: not found.
    const theirs = await twilioClient(other.creds.account_sid, other.creds.auth_token).messages.create({
      from: other.account.phone,
      to: testNumber(),
      body: 'mine',
    });
    expect(await restError(client.messages(theirs.sid).fetch())).toMatchObject({ code: 20404, status: 404 });
  });

  it('rate-limits per account with 20429', async () => {
    const { creds } = await withToken();
    const client = twilioClient(creds.account_sid, creds.auth_token);
    const previous = process.env.API_KEY_RATE_LIMIT;
    process.env.API_KEY_RATE_LIMIT = '1';
    resetKeyBuckets();
    try {
      await client.api.v2010.accounts(creds.account_sid).fetch();
      expect(await restError(client.api.v2010.accounts(creds.account_sid).fetch())).toMatchObject({
        code: 20429,
        status: 429,
      });
    } finally {
      if (previous === undefined) delete process.env.API_KEY_RATE_LIMIT;
      else process.env.API_KEY_RATE_LIMIT = previous;
      resetKeyBuckets();
    }
  });
});

describe('the Twilio form body', () => {
  it('answers `a&` × 40,000 at once with 400 naming the field limit (20400)', async () => {
    const { account, creds } = await withToken();
    const url = `${TWILIO_BASE}/2010-04-01/Accounts/${creds.account_sid}/Messages.json`;
    const post = (body: string) =>
      createMessage(
        new Request(url, {
          method: 'POST',
          headers: {
            authorization: `Basic ${Buffer.from(`${creds.account_sid}:${creds.auth_token}`).toString('base64')}`,
            'content-type': 'application/x-www-form-urlencoded',
          },
          body,
        }),
        { params: Promise.resolve({ accountSid: creds.account_sid }) },
      );
    // Many repeated fields under the limit still parse, gathered into one array (the message is sent).
    const form = new URLSearchParams({ From: account.phone, To: testNumber(), Body: 'hi' });
    for (let i = 0; i < 900; i++) form.append('a', String(i));
    expect((await post(form.toString())).status).toBe(201);

    const started = performance.now();
    const res = await post('a&'.repeat(40_000));
    // The quadratic parse took 16 s; a linear one takes milliseconds.
    expect(performance.now() - started).toBeLessThan(1500);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ code: 20400, message: 'The form body has more than 1000 fields.' });
  });
});
