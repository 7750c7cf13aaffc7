import { and, eq } from 'drizzle-orm';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { webhookAttempts, webhookDeliveries } from '@/db/schema';
import { emitEvent } from '@/lib/events/emit';
import { POST_TIMEOUT_MS } from '@/lib/webhooks/http-client';
import { createWebhook } from '@/lib/webhooks/manage';
import { runDeliveryBatch } from '@/lib/webhooks/worker';
import { createTestAccount } from './fixtures';
import { createTestCertificates, type Receiver, startReceiver } from './fixtures/tls/receiver';
import { withTestDatabase } from './setup-db';

process.env.APP_SECRET ??= 'test-app-secret-for-webhooks-0123456789abcdef';

const { db } = withTestDatabase();

let receiver: Receiver;

beforeAll(async () => {
  const certs = createTestCertificates();
  process.env.NODE_EXTRA_CA_CERTS = certs.caFile;
  receiver = await startReceiver(certs);
  // Accepts the connection and the request, and never answers.
  receiver.respond(() => new Promise(() => {}));
});

afterAll(async () => {
  await receiver?.close();
});

it('posts are cut after 10 s by default', () => {
  expect(POST_TIMEOUT_MS).toBe(10_000);
});

it('a receiver that never answers is cut at the timeout: the attempt is a timeout failure and the delivery is retried later', async () => {
  const account = await createTestAccount(db());
  const hook = await createWebhook(db(), account.accountId, {
    url: receiver.url('/silent'),
    events: ['message.received'],
  });
  const eventId = await db().transaction((tx) =>
    emitEvent(tx, { accountId: account.accountId, type: 'message.received', phone: account.phone, data: {} }),
  );
  const now = new Date(Date.now() + 1000);

  const started = performance.now();
  const [result] = await runDeliveryBatch(db(), { now, postTimeoutMs: 300 });
  const elapsed = performance.now() - started;

  expect(receiver.hitsFor('/silent')).toHaveLength(1);
  expect(elapsed).toBeLessThan(5_000);
  expect(result).toMatchObject({ eventId, verdict: 'retry', statusCode: null });
  const [delivery] = await db()
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.eventId, eventId), eq(webhookDeliveries.webhookId, hook.id)));
  expect(delivery).toMatchObject({ status: 'pending', attemptCount: 1, lockedUntil: null, lastStatusCode: null });
  expect(delivery!.lastError).toMatch(/timed out after 0\.3 s/);
  expect(delivery!.nextAttemptAt.getTime()).toBeGreaterThan(now.getTime());
  const attempts = await db().select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, delivery!.id));
  expect(attempts).toEqual([expect.objectContaining({ statusCode: null, error: expect.stringMatching(/timed out/) })]);
});
