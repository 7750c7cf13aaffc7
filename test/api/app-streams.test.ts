import { randomUUID } from 'node:crypto';
import { eq, type SQL } from 'drizzle-orm';
import { PgDialect } from 'drizzle-orm/pg-core';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { GET as events } from '@/app/api/mobile/v1/events/route';
import { POST as send } from '@/app/api/v1/messages/route';
import { devices, heartbeats, phones } from '@/db/schema';
import { config } from '@/lib/config';
import { openStreams } from '@/lib/devices/sessions';
import { announceStream } from '@/lib/devices/stream-announcements';
import { STREAM_RECHECK_MS } from '@/lib/notify/outbox';
import { resetKeyBuckets } from '@/lib/rate-limit/key-bucket';
import { createTestAccount, testNumber } from '../fixtures';
import { call } from '../http';
import { until } from '../poll';
import { withTestDatabase } from '../setup-db';
import { bearer, type PairedApp, pairApp, pairVerifiedApp } from '../smsgate-app';

const { db } = withTestDatabase();

afterEach(() => {
  vi.useRealTimers();
  process.env.API_KEY_RATE_LIMIT = '0';
  resetKeyBuckets();
});

/** GET /events in process; `ended` turns true once the server has ended the stream. */
async function openStream(app: PairedApp) {
  const controller = new AbortController();
  const res = await events(
    new Request('http://localhost:3000/api/mobile/v1/events', {
      headers: { ...bearer(app), accept: 'text/event-stream' },
      signal: controller.signal,
    }),
    { params: Promise.resolve({}) },
  );
  const state = { ended: false, text: '' };
  if (res.status === 200) {
    const reader = res.body!.getReader();
    void (async () => {
      const decoder = new TextDecoder();
      for (;;) {
        const chunk = await reader.read().catch(() => ({ done: true, value: undefined }));
        if (chunk.value) state.text += decoder.decode(chunk.value);
        if (chunk.done) break;
      }
      state.ended = true;
    })();
  }
  return { res, state, close: () => controller.abort() };
}

async function beatsOf(phoneId: string): Promise<number> {
  return db().$count(heartbeats, eq(heartbeats.phoneId, phoneId));
}

describe('stream opens and the key’s rate limit', () => {
  it('each open takes a token of the device key’s bucket: past the limit it answers 429 as the app reads errors', async () => {
    const account = await createTestAccount(db());
    const app = await pairApp(account);
    resetKeyBuckets();
    process.env.API_KEY_RATE_LIMIT = '3';
    // At once: a burst of opens, faster than the bucket refills (3 a second).
    const streams = await Promise.all(Array.from({ length: 6 }, () => openStream(app)));
    try {
      const statuses = streams.map((stream) => stream.res.status);
      expect(statuses.filter((status) => status === 200).length).toBeLessThanOrEqual(4);
      const limited = streams.find((stream) => stream.res.status === 429)?.res;
      expect(limited).toBeDefined();
      expect(statuses.every((status) => status === 200 || status === 429)).toBe(true);
      expect(limited!.headers.get('content-type')).toMatch(/^application\/json/);
      expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      const body = (await limited!.json()) as { message: string; code: string };
      expect(body.code).toBe('RATE_LIMITED');
      expect(body.message).toMatch(/at most 3 a second/);
    } finally {
      for (const stream of streams) stream.close();
    }
  });
});

describe('the presence tick', () => {
  const tickMs = () => Math.max(15, config.heartbeatTimeoutSeconds / 2) * 1000;

  it('records presence on each tick while the device still speaks for its phone', async () => {
    const account = await createTestAccount(db());
    const app = await pairApp(account);
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const stream = await openStream(app);
    try {
      expect(stream.res.status).toBe(200);
      const before = await beatsOf(account.phoneId);
      await vi.advanceTimersByTimeAsync(tickMs());
      await until(async () => (await beatsOf(account.phoneId)) > before, { timeoutMs: 2000 });
      expect(stream.state.ended).toBe(false);
    } finally {
      stream.close();
    }
  });

  it('re-checks the device: revoked with no notification heard, the tick ends the stream and records nothing', async () => {
    const account = await createTestAccount(db());
    const app = await pairApp(account);
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const stream = await openStream(app);
    const streamsBefore = openStreams();
    try {
      expect(stream.res.status).toBe(200);
      // A revocation whose NOTIFY never arrived (another instance's, lost): only the database knows.
      await db().update(devices).set({ status: 'revoked' }).where(eq(devices.id, app.deviceId));
      await db().update(phones).set({ deviceId: null }).where(eq(phones.id, account.phoneId));
      const before = await beatsOf(account.phoneId);
      await vi.advanceTimersByTimeAsync(tickMs());
      await until(() => stream.state.ended, { timeoutMs: 2000 });
      expect(await beatsOf(account.phoneId)).toBe(before);
      expect(openStreams()).toBe(streamsBefore - 1);
    } finally {
      stream.close();
    }
  });
});

describe('the stream’s own look (every STREAM_RECHECK_MS)', () => {
  it('tells the app to pull only when a message is due, its look a gathered claim probe', async () => {
    const account = await createTestAccount(db(), { credits: 5 });
    // Its SIM check pulled and answered: nothing is due.
    const app = await pairVerifiedApp(account);
    const execute = vi.spyOn(db(), 'execute');
    // This phone's probes only: other tests' streams may still be looking.
    const isProbe = (query: unknown) => {
      const { sql: text, params } = new PgDialect().sqlToQuery(query as SQL);
      return (
        text.includes('as p(account_id, phone_id') && params.some((param) => String(param).includes(account.phoneId))
      );
    };
    const probes = () => execute.mock.calls.filter(([query]) => isProbe(query)).length;
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const stream = await openStream(app);
    const enqueued = () => stream.state.text.split('event: MessageEnqueued').length - 1;
    try {
      expect(stream.res.status).toBe(200);
      // The stream's opening look (is there anything to drop?) is a probe too.
      await until(() => probes() === 1);
      await vi.advanceTimersByTimeAsync(STREAM_RECHECK_MS);
      await until(() => probes() === 2, { timeoutMs: 5000 });
      // The look's answer heard (the stream acts on it in the same turn): nothing was due, so nothing told.
      const look = execute.mock.results[execute.mock.calls.findLastIndex(([query]) => isProbe(query))];
      await look?.value;
      await new Promise((resolve) => setImmediate(resolve));
      expect(enqueued()).toBe(0);
      // A scheduled message: its send wakes the stream once; once it is due, the stream's look tells again.
      const dueAt = Date.now() + 300;
      const res = await call(send, {
        body: { from: account.phone, to: testNumber(), content: 'later', send_at: new Date(dueAt).toISOString() },
        apiKey: account.apiKey,
      });
      expect(res.status).toBe(201);
      await until(() => enqueued() === 1);
      await until(() => Date.now() > dueAt + 50);
      await vi.advanceTimersByTimeAsync(STREAM_RECHECK_MS);
      await until(() => enqueued() === 2, { timeoutMs: 5000 });
    } finally {
      stream.close();
      execute.mockRestore();
    }
  });
});

describe('the per-device stream cap across instances', () => {
  it('streams another instance announces for the device close this instance’s oldest: at most 2 live in all', async () => {
    const account = await createTestAccount(db());
    const app = await pairApp(account);
    const first = await openStream(app);
    const second = await openStream(app);
    try {
      expect([first.res.status, second.res.status]).toEqual([200, 200]);
      expect(openStreams(account.accountId)).toBe(2);
      // Another instance opens a stream of the same device: 3 in all, so this instance's oldest closes.
      await announceStream(app.deviceId, randomUUID());
      await until(() => first.state.ended);
      expect(second.state.ended).toBe(false);
      expect(openStreams(account.accountId)).toBe(1);
      // And a second one there: 2 newer than this instance's last, which closes too.
      await announceStream(app.deviceId, randomUUID());
      await until(() => second.state.ended);
      expect(openStreams(account.accountId)).toBe(0);
    } finally {
      first.close();
      second.close();
    }
  });
});
