import { afterEach, expect, it } from 'vitest';
import { GET as events } from '@/app/api/mobile/v1/events/route';
import { POST as claim } from '@/app/api/v1/device/outbox/claim/route';
import { waitingClaims } from '@/lib/notify/outbox';
import {
  RECONNECT_AFTER_SHUTDOWN_MS,
  RECONNECT_SPREAD_MS,
  reconnectAfterShutdownMs,
} from '@/lib/protocols/smsgate-app/events';
import { beginShutdown, resetShutdownForTests } from '@/lib/runtime/lifecycle';
import { createTestAccount } from '../fixtures';
import { call } from '../http';
import { until } from '../poll';
import { withTestDatabase } from '../setup-db';
import { bearer, pairApp } from '../smsgate-app';

/**
 * What waiting requests do when the server begins to shut down (scripts/start.mjs aborts the
 * shutdown signal on SIGTERM, then waits for them): they answer at once, normally.
 * test/server-shutdown.test.ts sends SIGTERM to a real server.
 */

const { db } = withTestDatabase();

afterEach(() => {
  resetShutdownForTests();
});

async function readAll(body: ReadableStream<Uint8Array>): Promise<string> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return text;
    text += decoder.decode(value);
  }
}

it('a long-polling claim answers its (empty) list as soon as shutdown begins', async () => {
  const account = await createTestAccount(db());
  const started = performance.now();
  const answer = call(claim, { path: '/api/v1/device/outbox/claim?wait=30', body: {}, apiKey: account.deviceKey });
  await until(() => waitingClaims(account.phoneId) > 0);
  beginShutdown();
  const res = await answer;
  expect(res.status).toBe(200);
  expect(res.body).toEqual({ data: [], cancel: [] });
  expect(performance.now() - started).toBeLessThan(5_000);
});

it('counts the running handlers, so that the host waits for their work and not only for open answers', async () => {
  const account = await createTestAccount(db());
  const lifecycle = (globalThis as { __simgateLifecycle?: { running?: number; onIdle?: () => void } })
    .__simgateLifecycle!;
  let idle = 0;
  lifecycle.onIdle = () => {
    idle++;
  };
  try {
    // A claim waiting: its client may hang up, and only the handler's own end takes it off the count.
    const answer = call(claim, { path: '/api/v1/device/outbox/claim?wait=30', body: {}, apiKey: account.deviceKey });
    await until(() => waitingClaims(account.phoneId) > 0);
    expect(lifecycle.running).toBe(1);
    expect(idle).toBe(0);
    beginShutdown();
    expect((await answer).status).toBe(200);
    expect(lifecycle.running).toBe(0);
    expect(idle).toBe(1);
    // A handler that fails is counted out too.
    const refused = await call(claim, { path: '/api/v1/device/outbox/claim', body: {}, apiKey: 'sg_nope' });
    expect(refused.status).toBe(401);
    expect(lifecycle.running).toBe(0);
    expect(idle).toBe(2);
  } finally {
    lifecycle.onIdle = undefined;
  }
});

it('a claim made during shutdown does not wait', async () => {
  const account = await createTestAccount(db());
  beginShutdown();
  const started = performance.now();
  const res = await call(claim, { path: '/api/v1/device/outbox/claim?wait=30', body: {}, apiKey: account.deviceKey });
  expect(res.status).toBe(200);
  expect(performance.now() - started).toBeLessThan(5_000);
});

it('the app’s event stream sends a retry hint and ends when shutdown begins', async () => {
  const account = await createTestAccount(db());
  const app = await pairApp(account);
  const req = new Request('http://localhost:3000/api/mobile/v1/events', {
    headers: { ...bearer(app), accept: 'text/event-stream' },
  });
  const res = await events(req, { params: Promise.resolve({}) });
  expect(res.status).toBe(200);
  const text = readAll(res.body!);
  // The stream watches the phone's outbox from its first byte: shutdown now ends an open stream.
  await until(() => waitingClaims(account.phoneId) > 0);
  beginShutdown();
  const received = await text;
  expect(received).toContain('event: SettingsUpdated');
  // The reconnect hint is spread per stream over RECONNECT_SPREAD_MS, so a restart's phones come back spread out.
  const retry = Number(/retry: (\d+)\n\n$/.exec(received)?.[1]);
  expect(retry).toBeGreaterThanOrEqual(RECONNECT_AFTER_SHUTDOWN_MS);
  expect(retry).toBeLessThan(RECONNECT_AFTER_SHUTDOWN_MS + RECONNECT_SPREAD_MS);
});

it('the reconnect hints of streams closed together are spread out', () => {
  expect(reconnectAfterShutdownMs(() => 0)).toBe(RECONNECT_AFTER_SHUTDOWN_MS);
  expect(reconnectAfterShutdownMs(() => 0.999)).toBe(RECONNECT_AFTER_SHUTDOWN_MS + RECONNECT_SPREAD_MS - 10);
  const hints = new Set(Array.from({ length: 100 }, () => reconnectAfterShutdownMs()));
  expect(hints.size).toBeGreaterThan(50);
});
