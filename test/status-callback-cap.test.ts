import { and, eq, inArray } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { POST as sendBulk } from '@/app/api/v1/bulk-messages/route';
import { POST as cancel } from '@/app/api/v1/messages/[id]/cancel/route';
import { POST as send } from '@/app/api/v1/messages/route';
import { POST as createToken } from '@/app/api/v1/twilio/auth-token/route';
import { POST as rotate } from '@/app/api/v1/webhooks/callback-secret/route';
import { messages, webhooks } from '@/db/schema';
import { sweepRetention } from '@/lib/retention/sweep';
import { runDeliveryBatch } from '@/lib/webhooks/worker';
import { balanceOf, createTestAccount, type TestAccount, testNumber } from './fixtures';
import { createTestCertificates, type Receiver, startReceiver } from './fixtures/tls/receiver';
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
  receiver.respond(() => ({ status: 200, body: 'ok' }));
});

afterAll(async () => {
  await receiver?.close();
});

afterEach(() => {
  vi.unstubAllEnvs();
});

async function withSecret(): Promise<TestAccount> {
  const account = await createTestAccount(db(), { credits: 10 });
  const res = await call(rotate, { method: 'POST', apiKey: account.apiKey });
  expect(res.status).toBe(201);
  return account;
}

function sendWithCallback(account: TestAccount, url: string) {
  return call(send, {
    body: { from: account.phone, to: testNumber(), content: 'hi', status_callback_url: url },
    apiKey: account.apiKey,
  });
}

async function callbackRows(account: TestAccount) {
  return db()
    .select({ id: webhooks.id, url: webhooks.url })
    .from(webhooks)
    .where(and(eq(webhooks.accountId, account.accountId), inArray(webhooks.kind, ['callback', 'twilio_callback'])));
}

describe('live status-callback URLs per account (STATUS_CALLBACK_URLS_PER_ACCOUNT)', () => {
  it('refuses the URL past the cap with a 400 naming status_callback_url, before any credit moves; a used URL does not count', async () => {
    vi.stubEnv('STATUS_CALLBACK_URLS_PER_ACCOUNT', '2');
    const account = await withSecret();
    for (const path of ['/cap-1', '/cap-2', '/cap-1']) {
      expect((await sendWithCallback(account, receiver.url(path))).status).toBe(201);
    }
    const balance = await balanceOf(db(), account.defaultGroupId);
    const refused = await sendWithCallback(account, receiver.url('/cap-3'));
    expect(refused.status, refused.text).toBe(400);
    expect(refused.body.errors[0].path).toBe('status_callback_url');
    const bulk = await call(sendBulk, {
      body: {
        from: account.phone,
        recipients: [testNumber(), testNumber()],
        content: 'hi',
        status_callback_url: receiver.url('/cap-3'),
      },
      apiKey: account.apiKey,
    });
    expect(bulk.status, bulk.text).toBe(400);
    expect(bulk.body.errors[0].path).toBe('status_callback_url');
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(balance);
    expect((await callbackRows(account)).length).toBe(2);
    expect((await sendWithCallback(account, receiver.url('/cap-2'))).status).toBe(201);
  });

  it('refuses a Twilio StatusCallback past the cap with error 21609 and no charge', async () => {
    vi.stubEnv('STATUS_CALLBACK_URLS_PER_ACCOUNT', '1');
    const account = await withSecret();
    const token = await call(createToken, { method: 'POST', apiKey: account.apiKey });
    const client = twilioClient(token.body.account_sid, token.body.auth_token);
    await client.messages.create({
      from: account.phone,
      to: testNumber(),
      body: 'a',
      statusCallback: receiver.url('/t-1'),
    });
    const balance = await balanceOf(db(), account.defaultGroupId);
    const refused = await client.messages
      .create({ from: account.phone, to: testNumber(), body: 'b', statusCallback: receiver.url('/t-2') })
      .then(
        () => undefined,
        (error: { status: number; code: number; message: string }) => error,
      );
    expect(refused).toMatchObject({ status: 400, code: 21609 });
    expect(refused?.message).toMatch(/^StatusCallback: /);
    expect(await balanceOf(db(), account.defaultGroupId)).toBe(balance);
  });

  it('holds under concurrent sends of distinct URLs', async () => {
    vi.stubEnv('STATUS_CALLBACK_URLS_PER_ACCOUNT', '3');
    const account = await withSecret();
    const answers = await Promise.all(
      Array.from({ length: 8 }, (_, i) => sendWithCallback(account, receiver.url(`/race-${i}`))),
    );
    expect(answers.map((answer) => answer.status).sort()).toEqual([201, 201, 201, 400, 400, 400, 400, 400]);
    expect((await callbackRows(account)).length).toBe(3);
  });

  it('the retention sweep deletes a target no live message needs, and then a new URL fits', async () => {
    vi.stubEnv('STATUS_CALLBACK_URLS_PER_ACCOUNT', '2');
    const account = await withSecret();
    const done = await sendWithCallback(account, receiver.url('/done'));
    const live = await sendWithCallback(account, receiver.url('/live'));
    expect([done.status, live.status]).toEqual([201, 201]);
    expect((await sendWithCallback(account, receiver.url('/next'))).status).toBe(400);
    const cancelled = await call(cancel, { method: 'POST', params: { id: done.body.id }, apiKey: account.apiKey });
    expect(cancelled.status, cancelled.text).toBe(200);

    // The cancellation's callback is still pending: the target stays.
    const later = new Date(Date.now() + 2 * 3_600_000);
    await sweepRetention(db(), { now: later });
    expect((await callbackRows(account)).length).toBe(2);

    for (let round = 0; round < 20; round++) {
      if ((await runDeliveryBatch(db(), { now: new Date(Date.now() + 1000), limit: 50 })).length === 0) break;
    }
    expect(receiver.hitsFor('/done').length).toBe(1);
    // Used within the last hour: a send that just used it may not have committed.
    await sweepRetention(db());
    expect((await callbackRows(account)).length).toBe(2);

    const report = await sweepRetention(db(), { now: later });
    expect(report.status_callbacks).toBe(1);
    expect((await callbackRows(account)).map((row) => row.url)).toEqual([receiver.url('/live')]);
    const [message] = await db()
      .select({ callbackWebhookId: messages.callbackWebhookId })
      .from(messages)
      .where(and(eq(messages.accountId, account.accountId), eq(messages.id, done.body.id)));
    expect(message?.callbackWebhookId).toBeNull();
    expect((await sendWithCallback(account, receiver.url('/next'))).status).toBe(201);
  });
});
