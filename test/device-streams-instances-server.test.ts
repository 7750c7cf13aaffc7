import { randomBytes } from 'node:crypto';
import postgres from 'postgres';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DatabaseHandle, openPostgres } from '@/db/client';
import { testDatabaseUrl } from './database';
import { createTestAccount } from './fixtures';
import { until } from './poll';
import { built, type Running, startServer } from './start-server';

/**
 * The per-device cap on SMSGate-app event streams (2) across two instances of `npm start`'s server
 * on one PostgreSQL database: streams of one device opened on both, at most 2 stay open in all. A
 * database of its own on the test server (TEST_DATABASE_URL), dropped after. Needs a build
 * (test/start-server.ts).
 */

type Stream = { ended: () => boolean; close: () => void };

describe.runIf(built && testDatabaseUrl())('event streams of one device on two instances', () => {
  const adminUrl = testDatabaseUrl() as URL;
  const name = `simgate_streams_${randomBytes(4).toString('hex')}`;
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const servers: Running[] = [];
  const streams: Stream[] = [];
  let own: DatabaseHandle | undefined;

  async function admin(statement: string) {
    const client = postgres(adminUrl.toString(), { max: 1, onnotice: () => {} });
    try {
      await client.unsafe(statement);
    } finally {
      await client.end();
    }
  }

  beforeAll(async () => {
    await admin(`create database ${name}`);
    const env = {
      DATABASE_URL: url.toString(),
      APP_SECRET: 'streams-test-secret-streams-test-secret-0123456789',
      API_KEY_RATE_LIMIT: '0',
    };
    // One after the other: the first migrates the database.
    servers.push(await startServer(env, false));
    servers.push(await startServer(env, false));
    own = openPostgres(url.toString(), { max: 2 });
  }, 240_000);

  afterAll(async () => {
    for (const stream of streams) stream.close();
    for (const server of servers) {
      if (server.child.exitCode !== null) continue;
      server.child.kill('SIGTERM');
      await server.exited;
    }
    await own?.close();
    await admin(`drop database if exists ${name} with (force)`);
  }, 60_000);

  /** Opens an event stream on `server` with the device's key, once its first events have arrived. */
  async function openStream(server: Running, key: string): Promise<Stream> {
    const controller = new AbortController();
    const res = await fetch(`${server.baseUrl}/api/mobile/v1/events`, {
      headers: { authorization: `Bearer ${key}`, accept: 'text/event-stream' },
      signal: controller.signal,
    });
    expect(res.status).toBe(200);
    const state = { text: '', ended: false };
    void (async () => {
      const decoder = new TextDecoder();
      try {
        for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
          state.text += decoder.decode(chunk);
        }
      } catch {
        // Aborted by the test.
      }
      state.ended = true;
    })();
    await until(() => state.text.includes('SettingsUpdated'), { timeoutMs: 20_000 });
    const stream = { ended: () => state.ended, close: () => controller.abort() };
    streams.push(stream);
    return stream;
  }

  it('two streams on each instance leave at most 2 open in all: the newest', { timeout: 120_000 }, async () => {
    const [a, b] = servers as [Running, Running];
    const account = await createTestAccount(own!.db);
    const opened = [
      await openStream(a, account.deviceKey),
      await openStream(a, account.deviceKey),
      await openStream(b, account.deviceKey),
      await openStream(b, account.deviceKey),
    ];
    await until(() => opened.filter((stream) => !stream.ended()).length <= 2, { timeoutMs: 20_000 });
    expect(opened.map((stream) => stream.ended())).toEqual([true, true, false, false]);
  });
});
