import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import postgres from 'postgres';
import { afterAll, describe, expect, it } from 'vitest';
import { APP_VERSION } from '@/lib/version';
import { activateDevice } from '@/tools/device-sim/activate';
import { DeviceClient } from '@/tools/device-sim/client';
import { eventually } from './fixtures/tls/receiver';
import { built, type Running, startServer } from './start-server';

/**
 * Where the server keeps its data: a database of its own on TEST_DATABASE_URL's server when that is
 * set (server mode), a throwaway embedded database otherwise.
 */
async function serverDatabase(dataDir: string): Promise<{ env: Record<string, string>; drop: () => Promise<void> }> {
  const testUrl = process.env.TEST_DATABASE_URL;
  if (!testUrl) return { env: { DATA_DIR: dataDir }, drop: async () => {} };
  const name = `simgate_health_${process.pid}_${Date.now()}`;
  const admin = postgres(testUrl, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${name}`);
  const url = new URL(testUrl);
  url.pathname = `/${name}`;
  return {
    env: {
      DATA_DIR: dataDir,
      DATABASE_URL: url.toString(),
      APP_SECRET: 'health-test-secret-health-test-secret-0123456789',
      DEV_INBOX: '1',
    },
    drop: async () => {
      await admin.unsafe(`drop database if exists ${name} with (force)`);
      await admin.end();
    },
  };
}

/**
 * The health probes of `npm start`'s real server (scripts/start.mjs around a production build, on a
 * database of its own): live, ready and startup answer 200 with the version once it has
 * started, and once SIGTERM has begun the drain, readiness answers 503 while a request in flight is
 * still answered. Needs a build (test/start-server.ts).
 */
describe.runIf(built)('the health probes of the running server', () => {
  let dataDir: string | undefined;
  let server: Running | undefined;
  let drop: (() => Promise<void>) | undefined;

  afterAll(async () => {
    server?.stop();
    await server?.exited;
    await drop?.();
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it('answer 200 with the version; after SIGTERM, ready answers 503 while a request drains', {
    timeout: 180_000,
  }, async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'simgate-health-'));
    const database = await serverDatabase(dataDir);
    drop = database.drop;
    server = await startServer(database.env);
    const { baseUrl } = server;

    for (const probe of ['live', 'ready', 'startup']) {
      const res = await fetch(`${baseUrl}/api/health/${probe}`);
      const body = (await res.json()) as {
        status: string;
        version: string;
        checks: Record<string, { status: string }>;
      };
      expect(res.status, probe).toBe(200);
      expect(body, probe).toMatchObject({ status: 'ok', version: APP_VERSION });
      expect(
        Object.values(body.checks).every((check) => check.status === 'ok'),
        probe,
      ).toBe(true);
    }
    const ready = (await (await fetch(`${baseUrl}/api/health/ready`)).json()) as { checks: object };
    expect(Object.keys(ready.checks)).toEqual([
      'shutdown',
      'started',
      'database',
      'migrations',
      'listen',
      'background',
    ]);
    expect((await fetch(`${baseUrl}/api/health`)).status).toBe(200);

    const phone = '+14155550144';
    const activation = await activateDevice(new DeviceClient({ baseUrl }), {
      phone,
      email: 'probes@example.test',
      apiKeyName: 'probes',
    });

    // One connection: a send whose body is finished only after SIGTERM keeps the drain open, and a
    // readiness probe pipelined behind it reaches the server during the drain (the listening socket
    // is closed by then: only a connection already open can still ask).
    const { port } = new URL(baseUrl);
    const socket = net.connect(Number(port), '127.0.0.1');
    await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    let received = '';
    socket.on('data', (chunk: Buffer) => {
      received += chunk.toString();
    });
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    const body = JSON.stringify({ from: phone, to: '+14155550123', content: 'drained' });
    socket.write(
      [
        'POST /api/v1/messages HTTP/1.1',
        `Host: 127.0.0.1:${port}`,
        `X-API-Key: ${activation.apiKey}`,
        'Content-Type: application/json',
        `Content-Length: ${Buffer.byteLength(body)}`,
        '',
        body.slice(0, 5),
      ].join('\r\n'),
    );
    // Ordering, not waiting for a result: the send must be in flight when SIGTERM comes, and a
    // separate server process offers no signal that it has reached it.
    await new Promise((resolve) => setTimeout(resolve, 300));

    server.child.kill('SIGTERM');
    await eventually(() => server!.output().includes('SIGTERM: shutting down'), 10_000);
    socket.write(`${body.slice(5)}GET /api/health/ready HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    await closed;

    const statuses = [...received.matchAll(/^HTTP\/1\.1 (\d{3})/gm)].map((match) => Number(match[1]));
    expect(statuses, received).toEqual([201, 503]);
    const probeAnswer = received.slice(received.lastIndexOf('HTTP/1.1 503'));
    expect(probeAnswer).toMatch(/content-type: application\/problem\+json/i);
    expect(probeAnswer).toContain('"code":"SERVICE_UNAVAILABLE"');
    expect(probeAnswer).toContain('"shutdown":{"status":"fail","detail":"shutting down: draining requests"}');
    expect(probeAnswer).toContain(`"version":"${APP_VERSION}"`);
    expect(await server.exited).toBe(0);
    expect(server.stderr()).not.toMatch(/"level":(50|60)/);
    server = undefined;
  });
});
