import { eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { POST as sendBulkRoute } from '@/app/api/v1/bulk-messages/route';
import { POST as sendRoute } from '@/app/api/v1/messages/route';
import { PATCH as patchWebhookRoute } from '@/app/api/v1/webhooks/[id]/route';
import { POST as rotateCallbackSecretRoute } from '@/app/api/v1/webhooks/callback-secret/route';
import { POST as createWebhookRoute } from '@/app/api/v1/webhooks/route';
import { messages, webhookAttempts, webhookDeliveries, webhooks } from '@/db/schema';
import { emitEvent } from '@/lib/events/emit';
import { createWebhook } from '@/lib/webhooks/manage';
import { blockedReason, refusedHostReason } from '@/lib/webhooks/ssrf';
import { runDeliveryBatch } from '@/lib/webhooks/worker';
import { createTestAccount, type TestAccount, testNumber } from './fixtures';
import { createTestCertificates, type Receiver, startReceiver } from './fixtures/tls/receiver';
import { call } from './http';
import { withTestDatabase } from './setup-db';

process.env.APP_SECRET ??= 'test-app-secret-for-webhooks-0123456789abcdef';

const { db } = withTestDatabase();

let account: TestAccount;
let receiver: Receiver;

beforeAll(async () => {
  const certs = createTestCertificates();
  process.env.NODE_EXTRA_CA_CERTS = certs.caFile;
  receiver = await startReceiver(certs);
  account = await createTestAccount(db());
});

afterAll(async () => {
  await receiver?.close();
});

/**
 * Server mode is `DATABASE_URL` being set. The test's database is already installed, so setting
 * it only changes the mode the checks read; WEBHOOK_ALLOW_PRIVATE_NETWORKS stays unset.
 */
async function inServerMode<T>(fn: () => Promise<T>): Promise<T> {
  const saved = { url: process.env.DATABASE_URL, allow: process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS };
  process.env.DATABASE_URL = 'postgres://server-mode.invalid/simgate';
  delete process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS;
  try {
    return await fn();
  } finally {
    if (saved.url === undefined) delete process.env.DATABASE_URL;
    else process.env.DATABASE_URL = saved.url;
    if (saved.allow !== undefined) process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = saved.allow;
  }
}

describe('the address guard', () => {
  const blocked = [
    '127.0.0.1',
    '127.255.0.9',
    '10.0.0.1',
    '172.16.5.4',
    '192.168.1.1',
    '169.254.169.254',
    '169.254.1.1',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fc00::1',
    'fd00:ec2::254',
    'ff02::1',
    '::ffff:10.0.0.1',
    '::ffff:127.0.0.1',
    // IPv4-compatible IPv6 (::/96), in the hex form URL and DNS give and as written.
    '::7f00:1',
    '::a00:1',
    '::a9fe:a9fe',
    '::808:808',
    '::127.0.0.1',
    '::10.0.0.1',
    '::169.254.169.254',
  ];
  for (const address of blocked) {
    it(`refuses ${address}`, () => expect(blockedReason(address)).toEqual(expect.any(String)));
  }
  for (const address of [
    '93.184.216.34',
    '8.8.8.8',
    '2606:4700:4700::1111',
    '2001:4860:4860::8888',
    '::ffff:93.184.216.34',
  ]) {
    it(`allows the public address ${address}`, () => expect(blockedReason(address)).toBeUndefined());
  }

  it('refuses a hostname that resolves to loopback, unless private networks are allowed', async () => {
    const url = new URL('https://localhost:8443/hook');
    expect(await refusedHostReason(url, { allowPrivateNetworks: false })).toMatch(/loopback/);
    expect(await refusedHostReason(url, { allowPrivateNetworks: true })).toBeUndefined();
  });
});

describe('at creation, in server mode', () => {
  const refused = [
    'https://127.0.0.1/hook',
    'https://10.0.0.1/hook',
    'https://169.254.169.254/latest/meta-data',
    'https://[::1]/hook',
    'https://[fd00:ec2::254]/',
    'https://[::ffff:7f00:1]/hook',
    'https://[::127.0.0.1]/hook',
    'https://[::10.0.0.1]/hook',
    'https://[::169.254.169.254]/latest/meta-data',
    'https://0x7f.1/hook',
    'https://localhost/hook',
  ];
  for (const url of refused) {
    it(`answers 400 VALIDATION_ERROR naming url for ${url}`, async () => {
      const res = await inServerMode(() =>
        call(createWebhookRoute, { apiKey: account.apiKey, body: { url, events: ['message.received'] } }),
      );
      expect(res.status).toBe(400);
      expect(res.body.code).toBe('VALIDATION_ERROR');
      expect(res.body.errors).toEqual([{ path: 'url', message: expect.stringMatching(/public addresses/) }]);
    });
  }

  it('answers 400 for a host that does not resolve', async () => {
    const res = await inServerMode(() =>
      call(createWebhookRoute, {
        apiKey: account.apiKey,
        body: { url: 'https://no-such-host.invalid/hook', events: ['message.received'] },
      }),
    );
    expect(res.status).toBe(400);
    expect(res.body.errors[0].path).toBe('url');
  });

  it('accepts a public address', async () => {
    const res = await inServerMode(() =>
      call(createWebhookRoute, {
        apiKey: account.apiKey,
        body: { url: 'https://93.184.216.34/hook', events: ['message.received'] },
      }),
    );
    expect(res.status).toBe(201);
    await db().update(webhooks).set({ enabled: false }).where(eq(webhooks.id, res.body.id));
  });

  it('checks a changed URL too', async () => {
    const { id } = await createWebhook(db(), account.accountId, {
      url: 'https://93.184.216.34/hook',
      events: ['phone.online'],
    });
    const res = await inServerMode(() =>
      call(patchWebhookRoute, {
        method: 'PATCH',
        apiKey: account.apiKey,
        params: { id },
        body: { url: 'https://10.1.2.3/hook' },
      }),
    );
    expect(res.status).toBe(400);
    expect(res.body.errors[0].path).toBe('url');
    await db().update(webhooks).set({ enabled: false }).where(eq(webhooks.id, id));
  });

  it('allows private addresses in local mode (no DATABASE_URL)', async () => {
    const res = await call(createWebhookRoute, {
      apiKey: account.apiKey,
      body: { url: 'https://127.0.0.1:9/hook', events: ['message.received'] },
    });
    expect(res.status).toBe(201);
    await db().update(webhooks).set({ enabled: false }).where(eq(webhooks.id, res.body.id));
  });

  it('allows them in server mode with WEBHOOK_ALLOW_PRIVATE_NETWORKS=1', async () => {
    const res = await inServerMode(async () => {
      process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS = '1';
      try {
        return await call(createWebhookRoute, {
          apiKey: account.apiKey,
          body: { url: 'https://10.0.0.1/hook', events: ['message.received'] },
        });
      } finally {
        delete process.env.WEBHOOK_ALLOW_PRIVATE_NETWORKS;
      }
    });
    expect(res.status).toBe(201);
    await db().update(webhooks).set({ enabled: false }).where(eq(webhooks.id, res.body.id));
  });
});

describe('at connect time', () => {
  it('refuses to dial a private address saved while it was allowed, recording the attempt with its error', async () => {
    receiver.hits.length = 0;
    // Saved in local mode, where private networks are allowed; delivered in server mode.
    const byAddress = await createWebhook(db(), account.accountId, {
      url: receiver.url('/by-address'),
      events: ['message.failed'],
    });
    const byName = await createWebhook(db(), account.accountId, {
      url: `https://localhost:${receiver.port}/by-name`,
      events: ['message.failed'],
    });
    const eventId = await db().transaction((tx) =>
      emitEvent(tx, { accountId: account.accountId, type: 'message.failed', phone: account.phone, data: {} }),
    );

    const results = await inServerMode(() => runDeliveryBatch(db(), { now: new Date(Date.now() + 1000) }));
    expect(results.map((r) => r.verdict)).toEqual(['failed', 'failed']);
    expect(receiver.hits).toHaveLength(0);

    for (const [hook, address] of [
      [byAddress, '127.0.0.1'],
      [byName, /127\.0\.0\.1|::1/],
    ] as const) {
      const [delivery] = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, hook.id));
      expect(delivery).toMatchObject({ eventId, status: 'failed', attemptCount: 1, lastStatusCode: null });
      const attempts = await db().select().from(webhookAttempts).where(eq(webhookAttempts.deliveryId, delivery!.id));
      expect(attempts).toHaveLength(1);
      expect(attempts[0]!.statusCode).toBeNull();
      expect(attempts[0]!.error).toMatch(/refused to connect/);
      expect(attempts[0]!.error).toMatch(address);
    }
  });

  it('takes the policy as a parameter too, and dials the same receiver when private networks are allowed', async () => {
    receiver.hits.length = 0;
    const hook = await createWebhook(db(), account.accountId, {
      url: receiver.url('/policy'),
      events: ['message.sent'],
    });
    await db().transaction((tx) =>
      emitEvent(tx, { accountId: account.accountId, type: 'message.sent', phone: account.phone, data: {} }),
    );
    const now = new Date(Date.now() + 1000);
    const [refused] = await runDeliveryBatch(db(), { now, policy: { allowPrivateNetworks: false } });
    expect(refused).toMatchObject({ verdict: 'failed', statusCode: null });

    const [delivery] = await db().select().from(webhookDeliveries).where(eq(webhookDeliveries.webhookId, hook.id));
    await db()
      .update(webhookDeliveries)
      .set({ status: 'pending', nextAttemptAt: now })
      .where(eq(webhookDeliveries.id, delivery!.id));
    const [allowed] = await runDeliveryBatch(db(), { now, policy: { allowPrivateNetworks: true } });
    expect(allowed).toMatchObject({ verdict: 'succeeded', statusCode: 200 });
    expect(receiver.hitsFor('/policy')).toHaveLength(1);
  });
});

describe('a send’s status_callback_url, in server mode', () => {
  const refusedUrl = 'https://127.0.0.1/cb';
  const sends = (from: { from: string } | { from_group: number }) => [
    { name: 'single send', handler: sendRoute, body: { ...from, to: testNumber(), content: 'Hi' } },
    { name: 'bulk send', handler: sendBulkRoute, body: { ...from, recipients: [testNumber()], content: 'Hi' } },
  ];

  for (const through of ['from', 'from_group'] as const) {
    it(`a dry run answers the real send’s 400 naming the field (${through})`, async () => {
      const sender = await createTestAccount(db(), { credits: 5 });
      const secret = await call(rotateCallbackSecretRoute, { method: 'POST', apiKey: sender.apiKey });
      expect(secret.status).toBe(201);
      const from = through === 'from' ? { from: sender.phone } : { from_group: sender.defaultGroupId };
      for (const { name, handler, body } of sends(from)) {
        for (const dryRun of [false, true]) {
          const res = await inServerMode(() =>
            call(handler, {
              apiKey: sender.apiKey,
              body: { ...body, status_callback_url: refusedUrl, ...(dryRun ? { dry_run: true } : {}) },
            }),
          );
          expect({ name, dryRun, status: res.status, code: res.body.code, errors: res.body.errors }).toEqual({
            name,
            dryRun,
            status: 400,
            code: 'VALIDATION_ERROR',
            errors: [{ path: 'status_callback_url', message: expect.stringMatching(/public addresses/) }],
          });
        }
      }
      expect(await db().select().from(messages).where(eq(messages.accountId, sender.accountId))).toHaveLength(0);
    });
  }

  it('a dry run without the account’s callback secret answers the real send’s 400 too', async () => {
    const sender = await createTestAccount(db(), { credits: 5 });
    for (const { handler, body } of sends({ from: sender.phone })) {
      for (const dryRun of [false, true]) {
        const res = await call(handler, {
          apiKey: sender.apiKey,
          body: { ...body, status_callback_url: receiver.url('/cb'), ...(dryRun ? { dry_run: true } : {}) },
        });
        expect(res.status).toBe(400);
        expect(res.body.errors).toEqual([
          { path: 'status_callback_url', message: expect.stringMatching(/callback secret first/) },
        ]);
      }
    }
  });

  it('a dry run with an accepted callback URL writes no callback target', async () => {
    const sender = await createTestAccount(db(), { credits: 5 });
    await call(rotateCallbackSecretRoute, { method: 'POST', apiKey: sender.apiKey });
    const res = await call(sendRoute, {
      apiKey: sender.apiKey,
      body: {
        from: sender.phone,
        to: testNumber(),
        content: 'Hi',
        status_callback_url: receiver.url('/cb'),
        dry_run: true,
      },
    });
    expect(res.status).toBe(200);
    expect(await db().select().from(webhooks).where(eq(webhooks.accountId, sender.accountId))).toHaveLength(0);
  });

  it('a dry run refuses a send_at in the past as the real send does', async () => {
    const sender = await createTestAccount(db(), { credits: 5 });
    const sendAt = new Date(Date.now() - 3600_000).toISOString();
    for (const { handler, body } of sends({ from: sender.phone })) {
      for (const dryRun of [false, true]) {
        const res = await call(handler, {
          apiKey: sender.apiKey,
          body: { ...body, send_at: sendAt, ...(dryRun ? { dry_run: true } : {}) },
        });
        expect(res.status).toBe(400);
        expect(res.body.errors[0].path).toBe('send_at');
      }
    }
  });
});
