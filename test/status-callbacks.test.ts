import { and, eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { POST as sendBulk } from '@/app/api/v1/bulk-messages/route';
import { POST as reportStatus } from '@/app/api/v1/device/messages/[id]/status/route';
import { POST as claim } from '@/app/api/v1/device/outbox/claim/route';
import { POST as cancel } from '@/app/api/v1/messages/[id]/cancel/route';
import { POST as send } from '@/app/api/v1/messages/route';
import { POST as rotate } from '@/app/api/v1/webhooks/callback-secret/route';
import { GET as listWebhooks } from '@/app/api/v1/webhooks/route';
import { webhookDeliveries, webhooks } from '@/db/schema';
import { runDeliveryBatch } from '@/lib/webhooks/worker';
import { createTestAccount, type TestAccount, testNumber } from './fixtures';
import { createTestCertificates, type Receiver, startReceiver } from './fixtures/tls/receiver';
import { call } from './http';
import { withTestDatabase } from './setup-db';

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

beforeEach(() => {
  receiver.respond(() => ({ status: 200, body: 'ok' }));
});

/** Runs delivery batches at `now` until nothing more is due. */
async function drain(now: Date): Promise<void> {
  for (let round = 0; round < 20; round++) {
    if ((await runDeliveryBatch(db(), { now, limit: 50 })).length === 0) return;
  }
}

const soon = () => new Date(Date.now() + 1000);

async function withSecret(): Promise<{ account: TestAccount; secret: string }> {
  const account = await createTestAccount(db(), { credits: 10 });
  const res = await call(rotate, { method: 'POST', apiKey: account.apiKey });
  expect(res.status).toBe(201);
  expect(res.body.secret).toMatch(/^whsec_/);
  return { account, secret: res.body.secret };
}

describe('per-message status callbacks', () => {
  it('posts the message’s state events, signed with the account’s callback secret, with no webhook configured', async () => {
    const { account, secret } = await withSecret();
    const url = receiver.url('/order-1042');
    const sent = await call(send, {
      body: { from: account.phone, to: testNumber(), content: 'Order shipped', status_callback_url: url },
      apiKey: account.apiKey,
    });
    expect(sent.status).toBe(201);
    await call(claim, { body: { limit: 5 }, apiKey: account.deviceKey });
    await call(reportStatus, { params: { id: sent.body.id }, body: { status: 'sent' }, apiKey: account.deviceKey });
    await call(reportStatus, {
      params: { id: sent.body.id },
      body: { status: 'delivered' },
      apiKey: account.deviceKey,
    });
    await drain(soon());
    const hits = receiver.hitsFor('/order-1042');
    const payloads = hits.map(
      (hit) => new Webhook(secret).verify(hit.body, hit.headers) as { type: string; data: { id: string } },
    );
    expect(payloads.map((p) => p.type).sort()).toEqual(['message.delivered', 'message.sent']);
    expect(payloads.every((p) => p.data.id === sent.body.id)).toBe(true);
    expect(() =>
      new Webhook(`whsec_${Buffer.from('another secret!!').toString('base64')}`).verify(
        hits[0]!.body,
        hits[0]!.headers,
      ),
    ).toThrow();
    // The callback target is not one of the account's webhooks.
    expect((await call(listWebhooks, { apiKey: account.apiKey })).body.data).toEqual([]);
  });

  it('retries a receiver that fails, through the webhook worker', async () => {
    const { account, secret } = await withSecret();
    let calls = 0;
    receiver.respond(() => {
      calls += 1;
      return calls === 1 ? { status: 500, body: 'down' } : { status: 200, body: 'ok' };
    });
    const bulk = await call(sendBulk, {
      body: {
        from: account.phone,
        recipients: [testNumber()],
        content: 'x',
        status_callback_url: receiver.url('/flaky-cb'),
      },
      apiKey: account.apiKey,
    });
    expect(bulk.status).toBe(201);
    const [id] = bulk.body.message_ids;
    expect((await call(cancel, { method: 'POST', params: { id }, apiKey: account.apiKey })).body.status).toBe(
      'cancelled',
    );
    const t0 = soon();
    expect((await runDeliveryBatch(db(), { now: t0 }))[0]).toMatchObject({ verdict: 'retry', statusCode: 500 });
    const [target] = await db()
      .select()
      .from(webhooks)
      .where(and(eq(webhooks.accountId, account.accountId), eq(webhooks.kind, 'callback')));
    const [delivery] = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, target!.id));
    expect(delivery).toMatchObject({ status: 'pending', attemptCount: 1, eventType: 'message.cancelled' });
    expect((await runDeliveryBatch(db(), { now: delivery!.nextAttemptAt }))[0]).toMatchObject({ verdict: 'succeeded' });
    const hits = receiver.hitsFor('/flaky-cb');
    expect(hits).toHaveLength(2);
    expect(new Webhook(secret).verify(hits[1]!.body, hits[1]!.headers)).toMatchObject({ type: 'message.cancelled' });
  });

  it('needs the callback secret first and an https URL, naming the field; nothing is charged', async () => {
    const account = await createTestAccount(db(), { credits: 3 });
    const noSecret = await call(send, {
      body: { from: account.phone, to: testNumber(), content: 'x', status_callback_url: receiver.url('/x') },
      apiKey: account.apiKey,
    });
    expect(noSecret.status).toBe(400);
    expect(noSecret.body.errors).toEqual([expect.objectContaining({ path: 'status_callback_url' })]);
    await call(rotate, { method: 'POST', apiKey: account.apiKey });
    const plain = await call(send, {
      body: { from: account.phone, to: testNumber(), content: 'x', status_callback_url: 'http://example.com/cb' },
      apiKey: account.apiKey,
    });
    expect(plain.status).toBe(400);
    expect(plain.body.errors).toEqual([expect.objectContaining({ path: 'status_callback_url' })]);
  });
});
