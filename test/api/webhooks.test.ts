import { eq } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POST as resend } from '@/app/api/v1/webhooks/[id]/deliveries/[delivery_id]/resend/route';
import { GET as getDelivery } from '@/app/api/v1/webhooks/[id]/deliveries/[delivery_id]/route';
import { GET as listDeliveries } from '@/app/api/v1/webhooks/[id]/deliveries/route';
import { POST as rotateSecret } from '@/app/api/v1/webhooks/[id]/rotate-secret/route';
import { DELETE as deleteWebhook, GET as getWebhook, PATCH as patchWebhook } from '@/app/api/v1/webhooks/[id]/route';
import { GET as getSecret } from '@/app/api/v1/webhooks/[id]/secret/route';
import { POST as sendTest } from '@/app/api/v1/webhooks/[id]/test/route';
import { GET as catalogue } from '@/app/api/v1/webhooks/events/route';
import { POST as createWebhook, GET as listWebhooks } from '@/app/api/v1/webhooks/route';
import { webhookDeliveries, webhooks } from '@/db/schema';
import { config } from '@/lib/config';
import { emitEvent } from '@/lib/events/emit';
import { registerSmsgateWebhook } from '@/lib/protocols/smsgate-api/webhooks';
import { callbackTarget, rotateCallbackSecret } from '@/lib/webhooks/callbacks';
import { runDeliveryBatch } from '@/lib/webhooks/worker';
import { describeAuthCases } from '../auth-cases';
import { createRevokedKey, createTestAccount, type TestAccount } from '../fixtures';
import { createTestCertificates, type Receiver, startReceiver } from '../fixtures/tls/receiver';
import { call } from '../http';
import { errorCodeOf } from '../poll';
import { withTestDatabase } from '../setup-db';

process.env.APP_SECRET ??= 'test-app-secret-for-webhooks-0123456789abcdef';

const { db } = withTestDatabase();

let account: TestAccount;
let other: TestAccount;
let revokedKey: string;
let receiver: Receiver;
/** A webhook of `account` with one delivered event, for the read routes and the auth cases. */
let hook: { id: string; secret: string };
let deliveryId: string;
let eventId: string;

const soon = () => new Date(Date.now() + 1000);

async function create(body: unknown, apiKey = account.apiKey) {
  return call(createWebhook, { body, apiKey });
}

beforeAll(async () => {
  const certs = createTestCertificates();
  process.env.NODE_EXTRA_CA_CERTS = certs.caFile;
  receiver = await startReceiver(certs);
  account = await createTestAccount(db());
  other = await createTestAccount(db());
  revokedKey = await createRevokedKey(db(), account.accountId);
  const created = await create({ url: receiver.url('/fixture'), events: ['message.received'] });
  hook = created.body;
  eventId = await db().transaction((tx) =>
    emitEvent(tx, { accountId: account.accountId, type: 'message.received', phone: account.phone, data: { n: 1 } }),
  );
  await runDeliveryBatch(db(), { now: soon() });
  const [delivery] = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, hook.id));
  deliveryId = delivery!.id;
});

afterAll(async () => {
  await receiver?.close();
});

describe('POST /api/v1/webhooks', () => {
  it('creates a webhook and shows its signing secret once here', async () => {
    const res = await create({
      url: receiver.url('/created'),
      events: ['message.received', 'message.delivered', 'message.received'],
      phone_filters: [account.phone],
      description: '  CRM sync ',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.any(String),
      url: receiver.url('/created'),
      events: ['message.received', 'message.delivered'],
      phone_filters: [account.phone],
      description: 'CRM sync',
      enabled: true,
      accept_replies: false,
      format: 'standard',
      disabled_reason: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/=]{40,}$/),
    });
    expect(() => new Webhook(res.body.secret)).not.toThrow();
    const [row] = await db().select().from(webhooks).where(eq(webhooks.id, res.body.id));
    expect(row!.secretEncrypted).not.toContain(res.body.secret.slice(6));
  });

  it('defaults phone_filters to every phone and description to null', async () => {
    const res = await create({ url: receiver.url('/defaults'), events: ['phone.offline'] });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ phone_filters: [], description: null });
  });

  const invalid: Array<[string, Record<string, unknown>, string]> = [
    ['a non-https URL', { url: 'http://example.com/hook', events: ['message.received'] }, 'url'],
    ['a malformed URL', { url: 'not a url', events: ['message.received'] }, 'url'],
    ['a URL with credentials', { url: 'https://user:pw@example.com/hook', events: ['message.received'] }, 'url'],
    ['a missing URL', { events: ['message.received'] }, 'url'],
    ['an empty event list', { url: 'https://example.com/hook', events: [] }, 'events'],
    ['an unknown event', { url: 'https://example.com/hook', events: ['message.exploded'] }, 'events.0'],
    ['the test event', { url: 'https://example.com/hook', events: ['webhook.test'] }, 'events.0'],
    ['events that are not a list', { url: 'https://example.com/hook', events: 'message.received' }, 'events'],
    [
      'a filter that is not a phone number',
      { url: 'https://example.com/hook', events: ['message.received'], phone_filters: ['12'] },
      'phone_filters.0',
    ],
    [
      'a URL over 2048 characters',
      { url: `https://example.com/${'a'.repeat(2100)}`, events: ['message.received'] },
      'url',
    ],
  ];
  for (const [what, body, path] of invalid) {
    it(`answers 400 VALIDATION_ERROR naming ${path} for ${what}`, async () => {
      const res = await create(body);
      expect(res.status).toBe(400);
      expect(res.contentType).toBe('application/problem+json');
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
    });
  }

  it("answers 400 naming the filter for a number that is not one of the account's phones", async () => {
    const res = await create({
      url: receiver.url('/filters'),
      events: ['message.received'],
      phone_filters: [account.phone, other.phone],
    });
    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([{ path: 'phone_filters.1', message: expect.stringContaining(other.phone) }]);
  });
});

describe('the plan’s webhook limit', () => {
  it('answers 403 PLAN_LIMIT_REACHED past it, counting SMSGate webhooks and not status callbacks', async () => {
    const owner = await createTestAccount(db());
    const limit = config.planLimits.free.webhooks;
    await rotateCallbackSecret(db(), owner.accountId);
    await callbackTarget(db(), owner.accountId, receiver.url('/callback'));
    await registerSmsgateWebhook(db(), owner.accountId, {
      id: 'sg-1',
      url: receiver.url('/sg'),
      event: 'sms:received',
    });
    for (let n = 1; n < limit; n++) {
      expect((await create({ url: receiver.url(`/n${n}`), events: ['message.sent'] }, owner.apiKey)).status).toBe(201);
    }
    const refused = await create({ url: receiver.url('/one-more'), events: ['message.sent'] }, owner.apiKey);
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({
      code: 'PLAN_LIMIT_REACHED',
      detail: `The free plan allows at most ${limit} webhook(s).`,
      plan: 'free',
      limit,
    });
    const sgNew = { id: 'sg-2', url: receiver.url('/sg'), event: 'sms:sent' };
    expect(await errorCodeOf(registerSmsgateWebhook(db(), owner.accountId, sgNew))).toBe('PLAN_LIMIT_REACHED');
    // Replacing an SMSGate webhook by its id is not one more.
    const sgAgain = { id: 'sg-1', url: receiver.url('/sg-moved'), event: 'sms:received' };
    expect(await errorCodeOf(registerSmsgateWebhook(db(), owner.accountId, sgAgain))).toBeUndefined();

    const listed = await call(listWebhooks, { apiKey: owner.apiKey, path: '/?limit=100' });
    const removed = await call(deleteWebhook, {
      method: 'DELETE',
      apiKey: owner.apiKey,
      params: { id: listed.body.data[0].id },
    });
    expect(removed.status).toBe(204);
    expect((await create({ url: receiver.url('/room'), events: ['message.sent'] }, owner.apiKey)).status).toBe(201);
  });

  it('holds under concurrent creates', async () => {
    const owner = await createTestAccount(db());
    const limit = config.planLimits.free.webhooks;
    const results = await Promise.all(
      Array.from({ length: limit + 10 }, (_, n) =>
        create({ url: receiver.url(`/c${n}`), events: ['message.sent'] }, owner.apiKey),
      ),
    );
    expect(results.filter((r) => r.status === 201)).toHaveLength(limit);
    expect(results.filter((r) => r.status !== 201).every((r) => r.body.code === 'PLAN_LIMIT_REACHED')).toBe(true);
  });

  it('a pro account has the pro plan’s', async () => {
    const owner = await createTestAccount(db(), { plan: 'pro' });
    const limit = config.planLimits.pro.webhooks;
    expect(limit).toBeGreaterThan(config.planLimits.free.webhooks);
    for (let n = 0; n < limit; n++) {
      expect((await create({ url: receiver.url(`/p${n}`), events: ['message.sent'] }, owner.apiKey)).status).toBe(201);
    }
    const refused = await create({ url: receiver.url('/p-more'), events: ['message.sent'] }, owner.apiKey);
    expect(refused.body).toMatchObject({ code: 'PLAN_LIMIT_REACHED', plan: 'pro', limit });
  });
});

describe('reading, listing, updating and deleting', () => {
  it('reads a webhook without its secret', async () => {
    const res = await call(getWebhook, { apiKey: account.apiKey, params: { id: hook.id } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: hook.id, url: receiver.url('/fixture'), enabled: true });
    expect(res.body.secret).toBeUndefined();
  });

  it('answers 400 for an id that is not a uuid and 404 for an unknown one', async () => {
    expect((await call(getWebhook, { apiKey: account.apiKey, params: { id: 'nope' } })).status).toBe(400);
    const missing = await call(getWebhook, { apiKey: account.apiKey, params: { id: crypto.randomUUID() } });
    expect(missing.status).toBe(404);
    expect(missing.body.code).toBe('NOT_FOUND');
  });

  it('lists the account’s webhooks newest first, a page at a time, without secrets', async () => {
    const owner = await createTestAccount(db());
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) {
      ids.push((await create({ url: receiver.url(`/list-${i}`), events: ['message.sent'] }, owner.apiKey)).body.id);
    }
    const first = await call(listWebhooks, { apiKey: owner.apiKey, path: '/api/v1/webhooks?limit=2' });
    expect(first.status).toBe(200);
    expect(first.body.data.map((w: { id: string }) => w.id)).toEqual([ids[2], ids[1]]);
    expect(first.body.data[0].secret).toBeUndefined();
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await call(listWebhooks, {
      apiKey: owner.apiKey,
      path: `/api/v1/webhooks?limit=2&cursor=${first.body.next_cursor}`,
    });
    expect(second.body).toEqual({ data: [expect.objectContaining({ id: ids[0] })], next_cursor: null });
    const badCursor = await call(listWebhooks, { apiKey: owner.apiKey, path: '/api/v1/webhooks?cursor=zzz' });
    expect(badCursor.status).toBe(400);
  });

  it('updates only the fields sent, and validates them like creation', async () => {
    const { body: created } = await create({ url: receiver.url('/patch'), events: ['message.received'] });
    const res = await call(patchWebhook, {
      method: 'PATCH',
      apiKey: account.apiKey,
      params: { id: created.id },
      body: { events: ['phone.online', 'phone.offline'], phone_filters: [account.phone], description: 'ops' },
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      url: receiver.url('/patch'),
      events: ['phone.online', 'phone.offline'],
      phone_filters: [account.phone],
      description: 'ops',
    });
    for (const body of [
      { url: 'http://example.com' },
      { events: [] },
      { phone_filters: [other.phone] },
      { enabled: 'no' },
    ]) {
      const bad = await call(patchWebhook, {
        method: 'PATCH',
        apiKey: account.apiKey,
        params: { id: created.id },
        body,
      });
      expect(bad.status).toBe(400);
      expect(bad.body.code).toBe('VALIDATION_ERROR');
    }
  });

  it('disables and enables; enabling clears an automatic disable', async () => {
    const { body: created } = await create({ url: receiver.url('/toggle'), events: ['message.received'] });
    const off = await call(patchWebhook, {
      method: 'PATCH',
      apiKey: account.apiKey,
      params: { id: created.id },
      body: { enabled: false },
    });
    expect(off.body.enabled).toBe(false);
    await db()
      .update(webhooks)
      .set({ disabledReason: 'failing', failingSince: new Date(0) })
      .where(eq(webhooks.id, created.id));
    const on = await call(patchWebhook, {
      method: 'PATCH',
      apiKey: account.apiKey,
      params: { id: created.id },
      body: { enabled: true },
    });
    expect(on.body).toMatchObject({ enabled: true, disabled_reason: null });
    const [row] = await db().select().from(webhooks).where(eq(webhooks.id, created.id));
    expect(row!.failingSince).toBeNull();
  });

  it('deletes a webhook (204), after which it is gone', async () => {
    const { body: created } = await create({ url: receiver.url('/delete'), events: ['message.received'] });
    const res = await call(deleteWebhook, { method: 'DELETE', apiKey: account.apiKey, params: { id: created.id } });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect((await call(getWebhook, { apiKey: account.apiKey, params: { id: created.id } })).status).toBe(404);
    expect(
      (await call(deleteWebhook, { method: 'DELETE', apiKey: account.apiKey, params: { id: created.id } })).status,
    ).toBe(404);
  });
});

describe('secrets', () => {
  it('shows the secret on request, and rotation answers a new one that the secret route then shows', async () => {
    const { body: created } = await create({ url: receiver.url('/secret'), events: ['message.received'] });
    const shown = await call(getSecret, { apiKey: account.apiKey, params: { id: created.id } });
    expect(shown.status).toBe(200);
    expect(shown.body).toEqual({ secret: created.secret });

    const rotated = await call(rotateSecret, { method: 'POST', apiKey: account.apiKey, params: { id: created.id } });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(created.secret);
    const after = await call(getSecret, { apiKey: account.apiKey, params: { id: created.id } });
    expect(after.body.secret).toBe(rotated.body.secret);
  });
});

describe('GET /api/v1/webhooks/events', () => {
  it('lists the catalogue with descriptions and sample payloads', async () => {
    const res = await call(catalogue);
    expect(res.status).toBe(200);
    const types = res.body.data.map((entry: { type: string }) => entry.type);
    expect(types).toEqual([
      'message.received',
      'message.sent',
      'message.delivered',
      'message.failed',
      'message.expired',
      'message.cancelling',
      'message.cancelled',
      'message.rerouted',
      'recipient.opted_out',
      'recipient.opted_in',
      'phone.online',
      'phone.offline',
      'phone.paused',
      'phone.resumed',
      'phone.ping',
      'alert.raised',
      'alert.resolved',
      'webhook.test',
    ]);
    const test = res.body.data.find((entry: { type: string }) => entry.type === 'webhook.test');
    expect(test.subscribable).toBe(false);
    for (const entry of res.body.data) {
      expect(entry.description).toEqual(expect.any(String));
      expect(entry.sample).toMatchObject({ type: entry.type, timestamp: expect.any(String), data: expect.any(Object) });
    }
  });
});

describe('deliveries', () => {
  it('lists deliveries with their state, filtered by status and event', async () => {
    const res = await call(listDeliveries, { apiKey: account.apiKey, params: { id: hook.id } });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([
      {
        id: deliveryId,
        webhook_id: hook.id,
        event_id: eventId,
        event_type: 'message.received',
        status: 'succeeded',
        attempt_count: 1,
        next_attempt_at: null,
        last_status_code: 200,
        last_error: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
      },
    ]);
    const path = (query: string) => `/api/v1/webhooks/${hook.id}/deliveries?${query}`;
    const failed = await call(listDeliveries, {
      apiKey: account.apiKey,
      params: { id: hook.id },
      path: path('status=failed'),
    });
    expect(failed.body.data).toEqual([]);
    const byEvent = await call(listDeliveries, {
      apiKey: account.apiKey,
      params: { id: hook.id },
      path: path('event=message.received&status=succeeded'),
    });
    expect(byEvent.body.data).toHaveLength(1);
    const otherEvent = await call(listDeliveries, {
      apiKey: account.apiKey,
      params: { id: hook.id },
      path: path('event=phone.online'),
    });
    expect(otherEvent.body.data).toEqual([]);
    for (const query of ['status=lost', 'event=message.exploded', 'limit=0', 'limit=101']) {
      const bad = await call(listDeliveries, { apiKey: account.apiKey, params: { id: hook.id }, path: path(query) });
      expect(bad.status).toBe(400);
    }
  });

  it('pages through deliveries with a cursor', async () => {
    const { body: created } = await create({ url: receiver.url('/paged'), events: ['message.sent'] });
    for (let i = 0; i < 3; i++) {
      await db().transaction((tx) =>
        emitEvent(tx, { accountId: account.accountId, type: 'message.sent', phone: account.phone, data: { i } }),
      );
    }
    const path = (query: string) => `/api/v1/webhooks/${created.id}/deliveries?${query}`;
    const first = await call(listDeliveries, {
      apiKey: account.apiKey,
      params: { id: created.id },
      path: path('limit=2'),
    });
    expect(first.body.data).toHaveLength(2);
    expect(first.body.data[0].status).toBe('pending');
    expect(first.body.data[0].next_attempt_at).toEqual(expect.any(String));
    const second = await call(listDeliveries, {
      apiKey: account.apiKey,
      params: { id: created.id },
      path: path(`limit=2&cursor=${first.body.next_cursor}`),
    });
    expect(second.body.data).toHaveLength(1);
    expect(second.body.next_cursor).toBeNull();
    const seen = new Set([...first.body.data, ...second.body.data].map((d: { id: string }) => d.id));
    expect(seen.size).toBe(3);
    await db().update(webhooks).set({ enabled: false }).where(eq(webhooks.id, created.id));
  });

  it('reads one delivery with its payload and attempts', async () => {
    const res = await call(getDelivery, { apiKey: account.apiKey, params: { id: hook.id, delivery_id: deliveryId } });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: deliveryId,
      status: 'succeeded',
      payload: { type: 'message.received', data: { n: 1 } },
      attempts: [
        {
          id: expect.any(Number),
          attempted_at: expect.any(String),
          status_code: 200,
          latency_ms: expect.any(Number),
          error: null,
          response_body: 'ok',
        },
      ],
    });
    const wrongHook = await call(getDelivery, {
      apiKey: account.apiKey,
      params: { id: crypto.randomUUID(), delivery_id: deliveryId },
    });
    expect(wrongHook.status).toBe(404);
  });

  it('resends a delivery (202), which goes out again with the same webhook-id', async () => {
    receiver.hits.length = 0;
    const res = await call(resend, {
      method: 'POST',
      apiKey: account.apiKey,
      params: { id: hook.id, delivery_id: deliveryId },
    });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ id: deliveryId, status: 'pending', next_attempt_at: expect.any(String) });
    await runDeliveryBatch(db(), { now: soon() });
    const [hit] = receiver.hitsFor('/fixture');
    expect(hit!.headers['webhook-id']).toBe(eventId);
    const after = await call(getDelivery, { apiKey: account.apiKey, params: { id: hook.id, delivery_id: deliveryId } });
    expect(after.body).toMatchObject({ status: 'succeeded', attempt_count: 2 });
    expect(after.body.attempts).toHaveLength(2);
  });

  it('sends a signed webhook.test to this webhook only (202 with the queued delivery)', async () => {
    receiver.hits.length = 0;
    const { body: created } = await create({ url: receiver.url('/ping'), events: ['phone.offline'] });
    const res = await call(sendTest, { method: 'POST', apiKey: account.apiKey, params: { id: created.id } });
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ webhook_id: created.id, event_type: 'webhook.test', status: 'pending' });
    await runDeliveryBatch(db(), { now: soon() });
    expect(receiver.hitsFor('/fixture')).toHaveLength(0);
    const [hit] = receiver.hitsFor('/ping');
    const payload = new Webhook(created.secret).verify(hit!.body, hit!.headers) as any;
    expect(payload).toMatchObject({ type: 'webhook.test', data: { webhook_id: created.id } });
    const read = await call(getDelivery, {
      apiKey: account.apiKey,
      params: { id: created.id, delivery_id: res.body.id },
    });
    expect(read.body).toMatchObject({ status: 'succeeded', event_id: hit!.headers['webhook-id'] });
  });
});

describe('another account', () => {
  it('gets 404 NOT_FOUND for every route of a webhook it does not own, and sees none in its list', async () => {
    const params = { id: hook.id };
    const deliveryParams = { id: hook.id, delivery_id: deliveryId };
    const attempts = [
      call(getWebhook, { apiKey: other.apiKey, params }),
      call(patchWebhook, { method: 'PATCH', apiKey: other.apiKey, params, body: { enabled: false } }),
      call(deleteWebhook, { method: 'DELETE', apiKey: other.apiKey, params }),
      call(getSecret, { apiKey: other.apiKey, params }),
      call(rotateSecret, { method: 'POST', apiKey: other.apiKey, params }),
      call(sendTest, { method: 'POST', apiKey: other.apiKey, params }),
      call(listDeliveries, { apiKey: other.apiKey, params }),
      call(getDelivery, { apiKey: other.apiKey, params: deliveryParams }),
      call(resend, { method: 'POST', apiKey: other.apiKey, params: deliveryParams }),
    ];
    for (const res of await Promise.all(attempts)) {
      expect(res.status).toBe(404);
      expect(res.body.code).toBe('NOT_FOUND');
    }
    const list = await call(listWebhooks, { apiKey: other.apiKey });
    expect(list.body.data.map((w: { id: string }) => w.id)).not.toContain(hook.id);
    const untouched = await call(getSecret, { apiKey: account.apiKey, params });
    expect(untouched.body.secret).toBe(hook.secret);
    const [row] = await db().select().from(webhooks).where(eq(webhooks.id, hook.id));
    expect(row!.enabled).toBe(true);
  });
});

const withHook = () => ({ params: { id: hook.id } });
const withDelivery = () => ({ params: { id: hook.id, delivery_id: deliveryId } });
const fixture = () => ({ account, revokedKey });
describeAuthCases('POST /api/v1/webhooks', {
  handler: createWebhook,
  request: () => ({ body: { url: receiver.url('/auth'), events: ['message.received'] } }),
  accepts: 'account',
  fixture,
});
describeAuthCases('GET /api/v1/webhooks', { handler: listWebhooks, request: {}, accepts: 'account', fixture });
describeAuthCases('GET /api/v1/webhooks/{id}', { handler: getWebhook, request: withHook, accepts: 'account', fixture });
describeAuthCases('PATCH /api/v1/webhooks/{id}', {
  handler: patchWebhook,
  request: () => ({ ...withHook(), method: 'PATCH', body: { description: 'x' } }),
  accepts: 'account',
  fixture,
});
describeAuthCases('DELETE /api/v1/webhooks/{id}', {
  handler: deleteWebhook,
  request: () => ({ ...withHook(), method: 'DELETE' }),
  accepts: 'account',
  fixture,
});
describeAuthCases('GET /api/v1/webhooks/{id}/secret', {
  handler: getSecret,
  request: withHook,
  accepts: 'account',
  fixture,
});
describeAuthCases('POST /api/v1/webhooks/{id}/rotate-secret', {
  handler: rotateSecret,
  request: () => ({ ...withHook(), method: 'POST' }),
  accepts: 'account',
  fixture,
});
describeAuthCases('POST /api/v1/webhooks/{id}/test', {
  handler: sendTest,
  request: () => ({ ...withHook(), method: 'POST' }),
  accepts: 'account',
  fixture,
});
describeAuthCases('GET /api/v1/webhooks/{id}/deliveries', {
  handler: listDeliveries,
  request: withHook,
  accepts: 'account',
  fixture,
});
describeAuthCases('GET /api/v1/webhooks/{id}/deliveries/{delivery_id}', {
  handler: getDelivery,
  request: withDelivery,
  accepts: 'account',
  fixture,
});
describeAuthCases('POST /api/v1/webhooks/{id}/deliveries/{delivery_id}/resend', {
  handler: resend,
  request: () => ({ ...withDelivery(), method: 'POST' }),
  accepts: 'account',
  fixture,
});
