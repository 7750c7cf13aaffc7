import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { built, type Running, startServer } from './start-server';

/**
 * A reverse proxy on the same machine (a TLS proxy for a real phone) connects from 127.0.0.1 for
 * clients anywhere: `npm start`'s real server (local mode, embedded database) answers its local-only
 * surfaces, the dev inbox and tokenless /metrics, to no request that carries a forwarding header.
 * Needs a build (test/start-server.ts).
 */
describe.runIf(built)('npm start behind a proxy on this machine', () => {
  let server: Running;
  beforeAll(async () => {
    server = await startServer({});
  }, 120_000);
  afterAll(() => {
    server?.stop();
  });

  const get = async (path: string, headers: Record<string, string> = {}) =>
    (await fetch(`${server.baseUrl}${path}`, { headers })).status;

  it('answers a loopback client that came through no proxy', async () => {
    expect(await get('/api/dev/inbox')).toBe(200);
    expect(await get('/dev/inbox')).toBe(200);
    expect(await get('/metrics')).toBe(200);
  });

  it('refuses the dev inbox and /metrics to a request with Forwarded, X-Forwarded-For or X-Real-IP, each alone', async () => {
    const proxied: Record<string, string>[] = [
      { 'x-forwarded-for': '203.0.113.7' },
      { 'x-forwarded-for': '127.0.0.1' },
      { 'x-real-ip': '203.0.113.7' },
      { forwarded: 'for=203.0.113.7;proto=https' },
    ];
    for (const headers of proxied) {
      const named = JSON.stringify(headers);
      expect(await get('/api/dev/inbox', headers), named).toBe(404);
      expect(await get('/dev/inbox', headers), named).toBe(404);
      expect(await get('/metrics', headers), named).toBe(404);
    }
  });
});
