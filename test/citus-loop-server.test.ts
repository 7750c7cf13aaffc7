import fs from 'node:fs';
import { sql } from 'drizzle-orm';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '@/db';
import { activateDevice } from '@/tools/device-sim/activate';
import { DeviceClient } from '@/tools/device-sim/client';
import { runDevice } from '@/tools/device-sim/run';
import { citusMode, testDatabaseUrl, withDatabase } from './database';
import { testNumber } from './fixtures';
import {
  createTestCertificates,
  type Hit,
  type Receiver,
  startReceiver,
  type TestCertificates,
} from './fixtures/tls/receiver';
import { until } from './poll';
import { withTestDatabase } from './setup-db';
import { built, type Running, startServer } from './start-server';

/**
 * The device simulator's whole loop against `npm start`'s real server on a Citus coordinator
 * (TEST_CITUS=1): the server's DATABASE_URL is this file's test database, a copy on every node of
 * the template whose account tables the harness distributed (test/database.ts). A phone is
 * activated, the simulator runs it, an integrator's send is delivered, an inbound SMS is stored, and
 * a webhook receives both events. Needs a build (test/start-server.ts).
 */

type Message = { id: string; direction: string; status: string; from: string; to: string; content: string };
type Event = { type: string; timestamp: string; data: Message };

/** A send on the Citus cluster takes a few tenths of a second: every wait is bounded well above that. */
const POLL = { timeoutMs: 60_000, intervalMs: 200 };

describe.runIf(citusMode() && built)('the device simulator against npm start on a Citus coordinator', () => {
  const { db, handle } = withTestDatabase();
  let certs: TestCertificates;
  let receiver: Receiver;
  let server: Running | undefined;

  beforeAll(async () => {
    certs = createTestCertificates();
    receiver = await startReceiver(certs);
    server = await startServer(
      {
        DATABASE_URL: withDatabase(testDatabaseUrl() as URL, handle().name),
        APP_SECRET: 'citus-loop-secret-citus-loop-secret-0123456789',
        DEV_INBOX: '1',
        API_KEY_RATE_LIMIT: '0',
        // The receiver is on loopback, which server mode refuses by default.
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: '1',
        NODE_EXTRA_CA_CERTS: certs.caFile,
      },
      false,
    );
  }, 120_000);

  afterAll(async () => {
    if (server && server.child.exitCode === null) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    await receiver?.close();
    if (certs) fs.rmSync(certs.dir, { recursive: true, force: true });
  }, 60_000);

  async function api<T>(
    apiKey: string,
    method: string,
    path: string,
    body?: unknown,
  ): Promise<{ status: number; body: T }> {
    const res = await fetch(`${server?.baseUrl}${path}`, {
      method,
      headers: { 'x-api-key': apiKey, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json().catch(() => null)) as T };
  }

  it('activates a phone, delivers an integrator’s send, stores an inbound SMS, and posts both webhook events', {
    timeout: 180_000,
  }, async () => {
    // The server's database is distributed: its messages and webhook tables are hash-distributed.
    const distributed = await queryRows<{ name: string }>(
      db(),
      sql`select logicalrelid::regclass::text as name from pg_dist_partition where partmethod = 'h'`,
    );
    expect(distributed.map((table) => table.name)).toEqual(
      expect.arrayContaining(['messages', 'phones', 'webhooks', 'webhook_deliveries']),
    );

    const baseUrl = server?.baseUrl as string;
    const phone = testNumber();
    const device = new DeviceClient({ baseUrl });
    const activation = await activateDevice(device, {
      phone,
      email: `citus-loop-${process.pid}@example.test`,
      apiKeyName: 'citus-loop',
    });
    expect(activation.deviceKey).toMatch(/^dk_/);
    const apiKey = activation.apiKey as string;
    expect(apiKey).toMatch(/^sk_/);

    const created = await api<{ id: string; secret: string }>(apiKey, 'POST', '/api/v1/webhooks', {
      url: receiver.url('/citus-loop'),
      events: ['message.delivered', 'message.received'],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const signer = new Webhook(created.body.secret);
    /** The receiver's posts as events, each checked against its Standard Webhooks signature. */
    const events = () =>
      receiver.hitsFor('/citus-loop').map((hit: Hit) => {
        signer.verify(hit.body, hit.headers);
        return JSON.parse(hit.body) as Event;
      });

    const to = testNumber();
    let sentId = '';
    const controller = new AbortController();
    const lines: string[] = [];
    const running = runDevice(device, {
      phone,
      failureRate: 0,
      delayMs: 0,
      waitSeconds: 2,
      limit: 10,
      heartbeatIntervalMs: 60_000,
      battery: 80,
      signal: controller.signal,
      log: (line) => lines.push(line),
    });
    try {
      const online = await until(async () => {
        const phones = await api<{ data: { phone: string; status: string; battery: number | null }[] }>(
          apiKey,
          'GET',
          '/api/v1/phones',
        );
        return phones.body.data.find((entry) => entry.phone === phone && entry.status === 'online');
      }, POLL);
      expect(online.battery).toBe(80);

      const sent = await api<Message>(apiKey, 'POST', '/api/v1/messages', {
        from: phone,
        to,
        content: 'from an integrator, through Citus',
      });
      expect(sent.status, JSON.stringify(sent.body)).toBe(201);
      sentId = sent.body.id;
      const delivered = await until(async () => {
        const read = await api<Message & { history: { status: string }[] }>(
          apiKey,
          'GET',
          `/api/v1/messages/${sent.body.id}`,
        );
        return read.body.status === 'delivered' ? read.body : undefined;
      }, POLL);
      expect(delivered.history.map((entry) => entry.status)).toEqual(['queued', 'dispatched', 'sent', 'delivered']);

      const sender = testNumber();
      const inbound = await device.receive({
        from: sender,
        content: 'a reply, through Citus',
        deviceMessageId: `citus-loop-${process.pid}`,
      });
      expect(inbound).toMatchObject({ status: 'received', from: sender, to: phone });
      const listed = await api<{ data: Message[] }>(apiKey, 'GET', '/api/v1/messages?direction=inbound');
      expect(listed.status).toBe(200);
      expect(listed.body.data).toEqual([
        expect.objectContaining({
          id: inbound.id,
          direction: 'inbound',
          from: sender,
          content: 'a reply, through Citus',
        }),
      ]);

      const posted = await until(() => {
        const all = events();
        const deliveredEvent = all.find((event) => event.type === 'message.delivered');
        const receivedEvent = all.find((event) => event.type === 'message.received');
        return deliveredEvent && receivedEvent ? { deliveredEvent, receivedEvent } : undefined;
      }, POLL);
      expect(posted.deliveredEvent.data).toMatchObject({
        id: sent.body.id,
        direction: 'outbound',
        status: 'delivered',
        from: phone,
        to,
      });
      expect(posted.receivedEvent.data).toMatchObject({
        id: inbound.id,
        direction: 'inbound',
        status: 'received',
        from: sender,
        to: phone,
      });
    } finally {
      controller.abort();
    }
    const stats = await running;
    expect(stats, lines.join('\n')).toMatchObject({ claimed: 1, delivered: 1, failed: 0, cancelled: 0 });
    expect(stats.heartbeats).toBeGreaterThanOrEqual(1);
    expect(lines).toContain(`delivered: ${sentId} to ${to}`);
    // No request failed inside the server.
    expect(server?.stderr()).not.toMatch(/"level":(50|60)/);
  });
});
