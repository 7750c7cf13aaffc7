import tls from 'node:tls';
import { and, eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { Database } from '@/db';
import { devInbox, type EventType, phones, webhookAttempts, webhookDeliveries, webhooks } from '@/db/schema';
import { emitEvent } from '@/lib/events/emit';
import { startWebhookWork } from '@/lib/webhooks/background';
import { createWebhook, deleteWebhook, getWebhook, rotateSecret } from '@/lib/webhooks/manage';
import { MAX_ATTEMPTS } from '@/lib/webhooks/retry-policy';
import { claimDueDeliveries, runDeliveryBatch } from '@/lib/webhooks/worker';
import { createTestAccount, type TestAccount, testNumber } from './fixtures';
import {
  createTestCertificates,
  eventually,
  gate,
  type Hit,
  type Receiver,
  startReceiver,
  type TestCertificates,
} from './fixtures/tls/receiver';
import { withTestDatabase } from './setup-db';

process.env.APP_SECRET ??= 'test-app-secret-for-webhooks-0123456789abcdef';

const { db } = withTestDatabase();

const SECOND = 1000;
const HOUR = 3600 * SECOND;

let certs: TestCertificates;
let receiver: Receiver;
let account: TestAccount;

beforeAll(async () => {
  certs = createTestCertificates();
  process.env.NODE_EXTRA_CA_CERTS = certs.caFile;
  receiver = await startReceiver(certs);
  // Each test makes its own webhooks in this one account: more than the free plan allows.
  account = await createTestAccount(db(), { plan: 'pro' });
});

afterAll(async () => {
  await receiver?.close();
});

beforeEach(() => {
  receiver.hits.length = 0;
  receiver.respond(() => ({ status: 200, body: 'ok' }));
});

// Each test drives its own webhooks: earlier ones stop receiving (and their leftovers stay unclaimed).
afterEach(async () => {
  await db().update(webhooks).set({ enabled: false });
});

async function newWebhook(
  pathname: string,
  events: string[] = ['message.received'],
  options: { phoneFilters?: string[]; owner?: TestAccount } = {},
) {
  return createWebhook(db(), (options.owner ?? account).accountId, {
    url: receiver.url(pathname),
    events: events as never,
    phone_filters: options.phoneFilters,
  });
}

async function emit(
  type: EventType,
  data: Record<string, unknown> = { id: crypto.randomUUID() },
  phone = account.phone,
) {
  return db().transaction((tx) => emitEvent(tx, { accountId: account.accountId, type, phone, data }));
}

/** A `now` safely past every delivery queued so far (queued on the database's clock). */
const soon = () => new Date(Date.now() + SECOND);

async function deliveryOf(eventId: string, webhookId: string) {
  const [row] = await db()
    .select()
    .from(webhookDeliveries)
    .where(and(eq(webhookDeliveries.eventId, eventId), eq(webhookDeliveries.webhookId, webhookId)));
  return row!;
}

async function attemptsOf(deliveryId: string) {
  return db()
    .select()
    .from(webhookAttempts)
    .where(eq(webhookAttempts.deliveryId, deliveryId))
    .orderBy(webhookAttempts.id);
}

function verify(secret: string, hit: Hit): any {
  return new Webhook(secret).verify(hit.body, hit.headers);
}

/** Runs batches until nothing is due at `now`. */
async function drain(database: Database, now: Date): Promise<void> {
  for (let round = 0; round < 50; round++) {
    if ((await runDeliveryBatch(database, { now, limit: 50 })).length === 0) return;
  }
}

describe('signed delivery', () => {
  it('posts { type, timestamp, data } signed per Standard Webhooks, verifiable with the secret', async () => {
    const hook = await newWebhook('/signed');
    const data = { id: crypto.randomUUID(), content: 'héllo ✓', status: 'received' };
    const eventId = await emit('message.received', data);
    await drain(db(), soon());

    const [hit] = receiver.hitsFor('/signed');
    expect(hit).toBeDefined();
    expect(hit!.headers['webhook-id']).toBe(eventId);
    expect(hit!.headers['content-type']).toBe('application/json');
    const payload = verify(hook.secret, hit!);
    expect(payload).toMatchObject({ type: 'message.received', data });
    expect(new Date(payload.timestamp).toISOString()).toBe(payload.timestamp);
    expect(() => verify(`whsec_${Buffer.from('wrong secret value').toString('base64')}`, hit!)).toThrow();

    const delivery = await deliveryOf(eventId, hook.id);
    expect(delivery).toMatchObject({ status: 'succeeded', attemptCount: 1, lastStatusCode: 200, lockedUntil: null });
    const [attempt] = await attemptsOf(delivery.id);
    expect(attempt).toMatchObject({ statusCode: 200, error: null, responseBody: 'ok' });
    expect(attempt!.latencyMs).toBeGreaterThanOrEqual(0);
  });

  it('routes by subscription and phone filters, and only to the account’s enabled webhooks', async () => {
    const [group] = await db().select({ groupId: phones.groupId }).from(phones).where(eq(phones.id, account.phoneId));
    const secondPhone = testNumber();
    await db().insert(phones).values({ accountId: account.accountId, groupId: group!.groupId, phone: secondPhone });
    const other = await createTestAccount(db());

    const all = await newWebhook('/route-all', ['message.received']);
    const filtered = await newWebhook('/route-filtered', ['message.received', 'phone.online'], {
      phoneFilters: [secondPhone],
    });
    const delivered = await newWebhook('/route-delivered', ['message.delivered']);
    const paused = await newWebhook('/route-paused', ['message.received']);
    await db().update(webhooks).set({ enabled: false }).where(eq(webhooks.id, paused.id));
    await newWebhook('/route-other-account', ['message.received', 'phone.online'], { owner: other });

    const receivedOnFirst = await emit('message.received', { n: 1 }, account.phone);
    const receivedOnSecond = await emit('message.received', { n: 2 }, secondPhone);
    const onlineSecond = await emit('phone.online', { n: 3 }, secondPhone);
    const deliveredFirst = await emit('message.delivered', { n: 4 }, account.phone);
    await emit('phone.offline', { n: 5 }, secondPhone);
    await drain(db(), soon());

    const ids = (pathname: string) =>
      receiver
        .hitsFor(pathname)
        .map((hit) => hit.headers['webhook-id'])
        .sort();
    expect(ids('/route-all')).toEqual([receivedOnFirst, receivedOnSecond].sort());
    expect(ids('/route-filtered')).toEqual([receivedOnSecond, onlineSecond].sort());
    expect(ids('/route-delivered')).toEqual([deliveredFirst]);
    expect(ids('/route-paused')).toEqual([]);
    expect(ids('/route-other-account')).toEqual([]);
    for (const hit of receiver.hitsFor('/route-filtered')) verify(filtered.secret, hit);
    for (const hit of receiver.hitsFor('/route-all')) verify(all.secret, hit);
    for (const hit of receiver.hitsFor('/route-delivered')) verify(delivered.secret, hit);
  });

  it('after a rotation signs with the new and the old secret for 24 h, then with the new one only', async () => {
    const hook = await newWebhook('/rotated');
    const { secret: newSecret } = await rotateSecret(db(), account.accountId, hook.id);
    expect(newSecret).not.toBe(hook.secret);

    await emit('message.received');
    await drain(db(), soon());
    const [during] = receiver.hitsFor('/rotated');
    expect(during!.headers['webhook-signature']!.split(' ')).toHaveLength(2);
    expect(verify(newSecret, during!)).toBeTruthy();
    expect(verify(hook.secret, during!)).toBeTruthy();

    await emit('message.received');
    await drain(db(), new Date(Date.now() + 25 * HOUR));
    const after = receiver.hitsFor('/rotated')[1]!;
    expect(after.headers['webhook-signature']!.split(' ')).toHaveLength(1);
    expect(verify(newSecret, after)).toBeTruthy();
    expect(() => verify(hook.secret, after)).toThrow();
  });

  it('trusts only the CA file it is given, and builds its TLS context once per version of the file', async () => {
    const hook = await newWebhook('/trusted');
    const contexts = vi.spyOn(tls, 'createSecureContext');
    try {
      const events = [await emit('message.received'), await emit('message.received'), await emit('message.received')];
      await runDeliveryBatch(db(), { now: soon() });
      for (const eventId of events) expect((await deliveryOf(eventId, hook.id)).status).toBe('succeeded');
      expect(contexts.mock.calls.length).toBeLessThanOrEqual(1);
    } finally {
      contexts.mockRestore();
    }

    const saved = process.env.NODE_EXTRA_CA_CERTS;
    process.env.NODE_EXTRA_CA_CERTS = createTestCertificates().caFile;
    try {
      const eventId = await emit('message.received');
      await runDeliveryBatch(db(), { now: soon() });
      expect((await deliveryOf(eventId, hook.id)).lastError).toMatch(/certificate/i);
      expect(receiver.hitsFor('/trusted')).toHaveLength(3);
    } finally {
      process.env.NODE_EXTRA_CA_CERTS = saved;
    }
  });

  it('does not trust a certificate its CA list does not cover (TLS always verified)', async () => {
    const hook = await newWebhook('/untrusted');
    const saved = process.env.NODE_EXTRA_CA_CERTS;
    delete process.env.NODE_EXTRA_CA_CERTS;
    try {
      const eventId = await emit('message.received');
      await runDeliveryBatch(db(), { now: soon() });
      const delivery = await deliveryOf(eventId, hook.id);
      expect(delivery.status).toBe('pending');
      expect(delivery.lastError).toMatch(/certificate/i);
      expect(receiver.hitsFor('/untrusted')).toHaveLength(0);
    } finally {
      process.env.NODE_EXTRA_CA_CERTS = saved;
    }
  });
});

describe('retries', () => {
  it('shows each webhook’s health: its last attempt and the day’s failure rate', async () => {
    const hook = await newWebhook('/health');
    expect((await getWebhook(db(), account.accountId, hook.id)).health).toEqual({
      last_attempt_at: null,
      last_status_code: null,
      attempts_24h: 0,
      failure_rate_24h: null,
    });
    receiver.respond((_hit, index) => ({ status: index === 0 ? 500 : 200 }));
    await emit('message.received');
    await emit('message.received');
    await runDeliveryBatch(db(), { now: soon(), limit: 1 });
    await runDeliveryBatch(db(), { now: soon(), limit: 1 });
    const health = (await getWebhook(db(), account.accountId, hook.id)).health;
    expect(health).toMatchObject({ attempts_24h: 2, failure_rate_24h: 0.5, last_status_code: 200 });
    expect(health.last_attempt_at).toEqual(expect.any(String));
  });

  it('a receiver that answers 500 twice then 200 gets the event on the third attempt, with the backoff recorded', async () => {
    const hook = await newWebhook('/flaky');
    receiver.respond((_hit, index) => ({ status: index < 2 ? 500 : 200, body: index < 2 ? 'down' : 'ok' }));
    const eventId = await emit('message.received');
    const t0 = soon();

    expect((await runDeliveryBatch(db(), { now: t0 }))[0]).toMatchObject({ verdict: 'retry', statusCode: 500 });
    let delivery = await deliveryOf(eventId, hook.id);
    expect(delivery).toMatchObject({ status: 'pending', attemptCount: 1, lastStatusCode: 500 });
    const firstWait = delivery.nextAttemptAt.getTime() - t0.getTime();
    expect(firstWait).toBeGreaterThanOrEqual(24 * SECOND);
    expect(firstWait).toBeLessThanOrEqual(36 * SECOND);
    const [hookRow] = await db().select().from(webhooks).where(eq(webhooks.id, hook.id));
    expect(hookRow!.failingSince).toEqual(t0);

    // Not due yet: nothing is posted.
    expect(await runDeliveryBatch(db(), { now: new Date(t0.getTime() + 20 * SECOND) })).toEqual([]);

    const t1 = new Date(delivery.nextAttemptAt.getTime());
    await runDeliveryBatch(db(), { now: t1 });
    delivery = await deliveryOf(eventId, hook.id);
    const secondWait = delivery.nextAttemptAt.getTime() - t1.getTime();
    expect(secondWait).toBeGreaterThanOrEqual(96 * SECOND);
    expect(secondWait).toBeLessThanOrEqual(144 * SECOND);

    const t2 = new Date(delivery.nextAttemptAt.getTime());
    expect((await runDeliveryBatch(db(), { now: t2 }))[0]).toMatchObject({ verdict: 'succeeded', statusCode: 200 });
    delivery = await deliveryOf(eventId, hook.id);
    expect(delivery).toMatchObject({ status: 'succeeded', attemptCount: 3, lastStatusCode: 200, lastError: null });

    const attempts = await attemptsOf(delivery.id);
    expect(attempts.map((a) => a.statusCode)).toEqual([500, 500, 200]);
    expect(attempts.map((a) => a.attemptedAt)).toEqual([t0, t1, t2]);
    expect(attempts[0]).toMatchObject({ error: 'answered HTTP 500', responseBody: 'down' });

    const hits = receiver.hitsFor('/flaky');
    expect(new Set(hits.map((hit) => hit.headers['webhook-id']))).toEqual(new Set([eventId]));
    for (const hit of hits) verify(hook.secret, hit);
    const [healed] = await db().select().from(webhooks).where(eq(webhooks.id, hook.id));
    expect(healed!.failingSince).toBeNull();
  });

  it(`gives up after ${MAX_ATTEMPTS} attempts over about a day`, async () => {
    const hook = await newWebhook('/down');
    receiver.respond(() => ({ status: 503 }));
    const eventId = await emit('message.received');
    const t0 = soon();
    let now = t0;
    for (let attempt = 1; attempt <= MAX_ATTEMPTS; attempt++) {
      const [result] = await runDeliveryBatch(db(), { now });
      expect(result?.verdict).toBe(attempt < MAX_ATTEMPTS ? 'retry' : 'failed');
      if (result?.nextAttemptAt) now = result.nextAttemptAt;
    }
    const delivery = await deliveryOf(eventId, hook.id);
    expect(delivery).toMatchObject({ status: 'failed', attemptCount: MAX_ATTEMPTS, lastStatusCode: 503 });
    const span = now.getTime() - t0.getTime();
    expect(span).toBeGreaterThan(18 * HOUR);
    expect(span).toBeLessThan(29 * HOUR);
    expect(await runDeliveryBatch(db(), { now: new Date(now.getTime() + 48 * HOUR) })).toEqual([]);
  });

  it('fails a delivery at once on a 4xx other than 408 and 429', async () => {
    const hook = await newWebhook('/gone');
    receiver.respond(() => ({ status: 410, body: 'no such hook' }));
    const eventId = await emit('message.received');
    const [result] = await runDeliveryBatch(db(), { now: soon() });
    expect(result).toMatchObject({ verdict: 'failed', statusCode: 410, nextAttemptAt: null });
    expect(await deliveryOf(eventId, hook.id)).toMatchObject({ status: 'failed', attemptCount: 1 });
  });

  it('retries 408 and 429, honouring Retry-After on 429', async () => {
    const hook = await newWebhook('/busy');
    receiver.respond(() => ({ status: 429, headers: { 'retry-after': '600' } }));
    const eventId = await emit('message.received');
    const now = soon();
    await runDeliveryBatch(db(), { now });
    const delivery = await deliveryOf(eventId, hook.id);
    expect(delivery.status).toBe('pending');
    expect(delivery.nextAttemptAt.getTime() - now.getTime()).toBeGreaterThanOrEqual(600 * SECOND);

    receiver.respond(() => ({ status: 408 }));
    const [result] = await runDeliveryBatch(db(), { now: delivery.nextAttemptAt });
    expect(result).toMatchObject({ verdict: 'retry', statusCode: 408 });
  });

  it('does not follow redirects: a 3xx is a failed attempt and the Location is never requested', async () => {
    const hook = await newWebhook('/moved');
    receiver.respond((hit) =>
      hit.path === '/moved' ? { status: 302, headers: { location: receiver.url('/elsewhere') } } : { status: 200 },
    );
    const eventId = await emit('message.received');
    const [result] = await runDeliveryBatch(db(), { now: soon() });
    expect(result).toMatchObject({ verdict: 'retry', statusCode: 302 });
    expect(receiver.hitsFor('/elsewhere')).toHaveLength(0);
    const delivery = await deliveryOf(eventId, hook.id);
    expect(delivery.lastError).toMatch(/redirects are not followed/);
  });

  it("keeps only the first 1 KiB of the receiver's answer", async () => {
    const hook = await newWebhook('/chatty');
    receiver.respond(() => ({ status: 500, body: 'x'.repeat(64 * 1024) }));
    const eventId = await emit('message.received');
    await runDeliveryBatch(db(), { now: soon() });
    const [attempt] = await attemptsOf((await deliveryOf(eventId, hook.id)).id);
    expect(attempt!.responseBody).toHaveLength(1024);
    expect(attempt!.statusCode).toBe(500);
  });
});

describe('the durable log survives a worker dying', () => {
  it('a claim whose worker died before posting runs out, and the delivery goes out once', async () => {
    const hook = await newWebhook('/crash-before-post');
    const eventId = await emit('message.received');
    const t0 = soon();
    const claimed = await claimDueDeliveries(db(), { now: t0 });
    expect(claimed).toHaveLength(1);
    // The worker is gone: no post, no attempt. Another worker does not touch the claim meanwhile.
    expect(await runDeliveryBatch(db(), { now: new Date(t0.getTime() + 30 * SECOND) })).toEqual([]);
    expect(await runDeliveryBatch(db(), { now: new Date(t0.getTime() + 61 * SECOND) })).toHaveLength(1);
    expect(receiver.hitsFor('/crash-before-post')).toHaveLength(1);
    const delivery = await deliveryOf(eventId, hook.id);
    expect(delivery).toMatchObject({ status: 'succeeded', attemptCount: 1 });
    expect(await attemptsOf(delivery.id)).toHaveLength(1);
  });

  it('a post still in flight when its claim ran out is delivered again (at least once) and both attempts are kept', async () => {
    const hook = await newWebhook('/crash-mid-flight');
    const held = gate();
    receiver.respond(async (_hit, index) => {
      if (index === 0) await held.wait;
      return { status: 200 };
    });
    const eventId = await emit('message.received');
    const t0 = soon();
    const stalled = runDeliveryBatch(db(), { now: t0 });
    await eventually(() => receiver.hitsFor('/crash-mid-flight').length === 1);

    const [retaken] = await runDeliveryBatch(db(), { now: new Date(t0.getTime() + 61 * SECOND) });
    expect(retaken).toMatchObject({ verdict: 'succeeded', eventId });
    held.open();
    const [late] = await stalled;
    expect(late!.verdict).toBe('superseded');

    const hits = receiver.hitsFor('/crash-mid-flight');
    expect(hits.map((hit) => hit.headers['webhook-id'])).toEqual([eventId, eventId]);
    const delivery = await deliveryOf(eventId, hook.id);
    expect(delivery).toMatchObject({ status: 'succeeded', attemptCount: 2, lockedUntil: null });
    expect(await attemptsOf(delivery.id)).toHaveLength(2);
  });

  it('a webhook deleted while its post is in flight leaves nothing to record, and no error', async () => {
    const hook = await newWebhook('/deleted-mid-flight');
    const held = gate();
    receiver.respond(async () => {
      await held.wait;
      return { status: 200 };
    });
    await emit('message.received');
    const posting = runDeliveryBatch(db(), { now: soon() });
    await eventually(() => receiver.hitsFor('/deleted-mid-flight').length === 1);
    await deleteWebhook(db(), account.accountId, hook.id);
    held.open();
    expect(await posting).toEqual([]);
  });

  it('two workers over 100 deliveries never post one delivery twice', async () => {
    const hook = await newWebhook('/parallel');
    let inFlight = 0;
    let maxInFlight = 0;
    receiver.respond(async () => {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      // A receiver that takes a moment, so the two workers' posts overlap.
      await new Promise((resolve) => setTimeout(resolve, 20));
      inFlight -= 1;
      return { status: 200 };
    });
    const eventIds = await db().transaction(async (tx) => {
      const ids: string[] = [];
      for (let i = 0; i < 100; i++) {
        ids.push(
          await emitEvent(tx, {
            accountId: account.accountId,
            type: 'message.received',
            phone: account.phone,
            data: { i },
          }),
        );
      }
      return ids;
    });
    const now = soon();
    const worker = async () => {
      let posted = 0;
      for (;;) {
        const results = await runDeliveryBatch(db(), { now, limit: 15 });
        if (results.length === 0) return posted;
        posted += results.length;
      }
    };
    const [a, b] = await Promise.all([worker(), worker()]);
    expect(a + b).toBe(100);

    const counts = new Map<string, number>();
    for (const hit of receiver.hitsFor('/parallel')) {
      const id = hit.headers['webhook-id']!;
      counts.set(id, (counts.get(id) ?? 0) + 1);
    }
    expect([...counts.keys()].sort()).toEqual([...eventIds].sort());
    expect([...counts.values()].every((count) => count === 1)).toBe(true);
    const rows = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, hook.id));
    expect(rows.every((row) => row.status === 'succeeded' && row.attemptCount === 1)).toBe(true);
    expect(maxInFlight).toBeGreaterThan(1);
  });
});

describe('automatic disable', () => {
  it('disables a webhook failing for over a day at its next final failure, and emails the owner', async () => {
    const owner = await createTestAccount(db());
    const hook = await createWebhook(db(), owner.accountId, { url: receiver.url('/broken'), events: ['phone.online'] });
    receiver.respond(() => ({ status: 400, body: 'bad' }));
    const emitFor = () =>
      db().transaction((tx) =>
        emitEvent(tx, { accountId: owner.accountId, type: 'phone.online', phone: owner.phone, data: {} }),
      );

    await emitFor();
    const t0 = soon();
    await runDeliveryBatch(db(), { now: t0 });
    let [row] = await db().select().from(webhooks).where(eq(webhooks.id, hook.id));
    expect(row).toMatchObject({ enabled: true, failingSince: t0 });

    await emitFor();
    await runDeliveryBatch(db(), { now: new Date(t0.getTime() + 23 * HOUR) });
    [row] = await db().select().from(webhooks).where(eq(webhooks.id, hook.id));
    expect(row!.enabled).toBe(true);

    await emitFor();
    await runDeliveryBatch(db(), { now: new Date(t0.getTime() + 25 * HOUR) });
    [row] = await db().select().from(webhooks).where(eq(webhooks.id, hook.id));
    expect(row!.enabled).toBe(false);
    expect(row!.disabledReason).toMatch(/failed since/);

    const mail = await db().select().from(devInbox).where(eq(devInbox.to, owner.email));
    expect(mail).toHaveLength(1);
    expect(mail[0]!.text).toContain(receiver.url('/broken'));

    // Disabled: new events are not queued for it.
    const afterwards = await emitFor();
    const queued = await db()
      .select()
      .from(webhookDeliveries)
      .where(and(eq(webhookDeliveries.eventId, afterwards), eq(webhookDeliveries.webhookId, hook.id)));
    expect(queued).toHaveLength(0);
  });
});

describe('the in-process worker', () => {
  it('delivers without being driven, and on stop finishes the post in flight', async () => {
    const hook = await newWebhook('/background');
    const held = gate();
    receiver.respond(async (_hit, index) => {
      if (index === 1) await held.wait;
      return { status: 200 };
    });
    const stop = await startWebhookWork();
    let stopped = false;
    try {
      const first = await emit('message.received');
      await eventually(async () => (await deliveryOf(first, hook.id)).status === 'succeeded');

      const second = await emit('message.received');
      await eventually(() => receiver.hitsFor('/background').length === 2);
      const stopping = stop().then(() => {
        stopped = true;
      });
      await new Promise((resolve) => setImmediate(resolve));
      expect(stopped).toBe(false);
      held.open();
      await stopping;
      expect((await deliveryOf(second, hook.id)).status).toBe('succeeded');
    } finally {
      held.open();
      if (!stopped) await stop();
    }
  });
});
